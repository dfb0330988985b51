import type { BatchDefinition } from '../../platform/batch/definition.js';
import { upsertProducts, upsertProductsJson } from './catalogue.repository.js';
import { ProductItemSchema, type ProductItem } from './catalogue.schemas.js';

export const productBatch: BatchDefinition<ProductItem> = {
  name: 'catalogue/products',
  itemSchema: ProductItemSchema,
  keyFields: ['/sku'],
  keyOf: (item) => item.sku,
  write: upsertProducts,
  writeJson: upsertProductsJson,
};
