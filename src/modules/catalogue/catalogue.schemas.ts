import { Type, type Static } from 'typebox';
import { nullableString } from '../../platform/schema/nullable.js';
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

/** Pictures per master product or colourway (a gallery, not an archive). */
export const MAX_IMAGES = 12;
/** Long enough for signed CDN URLs; a runaway value is refused with its path. */
export const IMAGE_URL_LENGTH = 2000;
export const IMAGE_ALT_LENGTH = 250;

export const MediaImageSchema = Type.Object({
  url: Type.Unsafe<string>({
    type: 'string', minLength: 1, maxLength: IMAGE_URL_LENGTH, [TEXT_KEYWORD]: true, [NOT_BLANK_KEYWORD]: true,
    description: 'Absolute https URL of the picture (http only for a loopback host: localhost, 127.0.0.1, [::1]); no user name or password in it',
  }),
  alt: Type.Optional(Type.Unsafe<string | null>({
    type: ['string', 'null'], maxLength: IMAGE_ALT_LENGTH, [TEXT_KEYWORD]: true,
    description: 'What the picture shows, for people who cannot see it; absent, null or blank: the portal says "<product> in <colour>"',
  })),
}, { description: 'One picture' });
export type MediaImage = Static<typeof MediaImageSchema>;

export const MediaItemSchema = Type.Object({
  masterProductNo: requiredString(20),
  // Null or absent: the pictures of every colourway of the master product that has none of its own.
  color: Type.Optional(Type.Unsafe<string | null>({
    type: ['string', 'null'], minLength: 1, maxLength: 50, [TEXT_KEYWORD]: true, [NOT_BLANK_KEYWORD]: true,
    description: 'The colourway, as products send it in color; null or absent: pictures of the whole master product, shown for every colourway without pictures of its own',
  })),
  images: Type.Array(MediaImageSchema, {
    maxItems: MAX_IMAGES,
    description: `A snapshot, at most ${MAX_IMAGES}, first shown first: it replaces every picture stored under the key; [] removes them all. Each URL once.`,
  }),
}, { description: 'Pictures of a master product or of one colourway; key `{masterProductNo}` or `{masterProductNo}_{color}` as the search key rule normalises it' });
export type MediaItem = Static<typeof MediaItemSchema>;

/** A picture as the lookup's and search's answers carry it. */
export const ImageAnswerSchema = Type.Object({
  url: Type.String({ description: 'Absolute URL of the picture, as the integration sent it' }),
  alt: nullableString('What the picture shows, as sent; null when none was sent (or blank)'),
});
export type ImageAnswer = Static<typeof ImageAnswerSchema>;
