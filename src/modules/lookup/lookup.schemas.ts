import { Type, type Static } from 'typebox';
import { AMOUNT_PATTERN } from '../../platform/schema/amount.js';
import { nullableString, orNull } from '../../platform/schema/nullable.js';
import { ImageAnswerSchema } from '../catalogue/index.js';
import { StockSchema } from '../inventory/index.js';

/** At most this many keys per call (interface "Limits"). */
export const MAX_LOOKUP_KEYS = 100;

export const BySkuBodySchema = Type.Object({
  skus: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_LOOKUP_KEYS, description: '1 to 100 SKUs; duplicates are answered again' }),
});
export const ByEanBodySchema = Type.Object({
  eans: Type.Array(Type.String({ pattern: '^([0-9]{8}|[0-9]{13})$' }), {
    minItems: 1, maxItems: MAX_LOOKUP_KEYS, description: '1 to 100 EAN-8/EAN-13 codes with a correct GS1 check digit',
  }),
});


export const LookupValueSchema = Type.Object({
  currency: Type.String({ description: 'ISO 4217, from SITE_CURRENCY' }),
  ean: nullableString('Null when no EAN is assigned'),
  sku: Type.String(),
  masterProductNo: Type.String({ description: 'Groups the size and colour variants; the sku itself when none was sent' }),
  name: nullableString('Null when never sent'),
  size: nullableString('Null when not applicable'),
  color: nullableString('Null when not applicable'),
  unitPrice: orNull(
    Type.String({ pattern: AMOUNT_PATTERN }),
    'Net unit price at quantity 1, promotions excluded, as an exact 4-place decimal string; null when no price is determinable',
  ),
  stock: StockSchema,
  images: Type.Array(ImageAnswerSchema, {
    description: 'Portway\'s addition: the pictures of the SKU\'s colourway, first shown first; those sent for the colourway, else those sent for its master product; [] when none',
  }),
});

export const LookupResultSchema = Type.Object({
  key: Type.String({ description: 'The EAN or SKU requested' }),
  found: Type.Boolean(),
  value: orNull(LookupValueSchema, 'Null when not found'),
});
export const LookupResponseSchema = Type.Object({ data: Type.Array(LookupResultSchema) });

export type LookupValue = Static<typeof LookupValueSchema>;
export type LookupResult = Static<typeof LookupResultSchema>;
