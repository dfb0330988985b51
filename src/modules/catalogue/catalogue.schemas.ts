import { Type, type Static } from 'typebox';
import {
  NOT_BLANK_KEYWORD, TEXT_KEYWORD, optionalBoolean, optionalDecimal, optionalString, requiredString,
} from '../../platform/schema/fields.js';

/** A category or brand code: as long as a product's `category` / `brandCode` that names it. */
export const REFERENCE_CODE_LENGTH = 20;

/** Product: one buyable variant (one size in one colour). Lengths as in the interface document. */
export const ProductItemSchema = Type.Object({
  sku: requiredString(20),
  masterProductNo: optionalString(20),
  name: optionalString(100),
  description: optionalString(100),
  blocked: optionalBoolean(),
  unitOfMeasure: optionalString(10),
  unitPrice: optionalDecimal({ minimum: 0 }),
  weight: optionalDecimal({ minimum: 0 }),
  length: optionalDecimal({ minimum: 0 }),
  width: optionalDecimal({ minimum: 0 }),
  height: optionalDecimal({ minimum: 0 }),
  category: optionalString(REFERENCE_CODE_LENGTH),
  size: optionalString(50),
  color: optionalString(50),
  stratificationCode: optionalString(10),
  isDefaultColor: optionalBoolean(),
  subBrand: optionalString(200),
  gender: optionalString(50),
  brandCode: optionalString(REFERENCE_CODE_LENGTH),
  styleDescription: optionalString(1000),
  fabricComposition: optionalString(500),
  styleFeatures: optionalString(1000),
  complianceIcons: optionalString(500),
  sizeFit: optionalString(50),
  modelSize: optionalString(10),
  modelHeight: optionalString(50),
  careInstructions: optionalString(500),
  ean: optionalString(20),
  sleeveLength: optionalString(50),
  fabricType: optionalString(50),
  taxGroupCode: optionalString(50),
  gstProductPostingGroup: optionalString(50),
  itemDiscountGroup: optionalString(50),
}, { description: 'Product (catalogue item): one size in one colour' });

export type ProductItem = Static<typeof ProductItemSchema>;

export const CategoryItemSchema = Type.Object({
  code: requiredString(REFERENCE_CODE_LENGTH),
  name: requiredString(100),
  // Null or absent: a root. When given it names a category, so "" and white space alone are refused like a key.
  parentCode: Type.Optional(Type.Unsafe<string | null>({
    type: ['string', 'null'], minLength: 1, maxLength: REFERENCE_CODE_LENGTH, [TEXT_KEYWORD]: true, [NOT_BLANK_KEYWORD]: true,
    description: 'Code of the parent category; null or absent for a root. A parent not stored yet may be named.',
  })),
}, { description: 'Category (reference data); code is its natural key, as products send it in category' });
export type CategoryItem = Static<typeof CategoryItemSchema>;

export const BrandItemSchema = Type.Object({
  code: requiredString(REFERENCE_CODE_LENGTH),
  name: requiredString(100),
  restricted: Type.Boolean({ description: 'Only accounts that list the brand in allowedBrands or indentBrands may see and buy it' }),
}, { description: 'Brand (reference data); code is its natural key, as products send it in brandCode (no commas)' });
export type BrandItem = Static<typeof BrandItemSchema>;
