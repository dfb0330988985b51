import { Type, type Static } from 'typebox';
import {
  MAX_INT4, optionalBoolean, optionalDateTime, optionalDecimal, optionalInteger, optionalString, requiredEnum, requiredString,
} from '../../platform/schema/fields.js';

/** Enumerated literals of decisions §2; case-sensitive. */
export const SOURCE_TYPES = ['AllCustomers', 'Customer', 'CustomerPriceGroup', 'CustomerDiscountGroup'] as const;
export const AMOUNT_TYPES = ['Price', 'Discount'] as const;

/** The one target fields: a rule names exactly one of them (checked in the service). */
export const TARGET_FIELDS = ['sku', 'masterProductNo', 'itemDiscountGroup'] as const;

/** A percentage off cannot take more than the whole price. */
export const MAX_DISCOUNT_PERCENT = 100;

/** Price rule (PriceListLineDto). Code lengths follow the columns they match (product sku 20, …). */
export const PriceRuleItemSchema = Type.Object({
  ruleId: requiredString(50),
  sourceType: requiredEnum(SOURCE_TYPES),
  sourceCode: optionalString(20),
  masterProductNo: optionalString(20),
  sku: optionalString(20),
  itemDiscountGroup: optionalString(50),
  amountType: requiredEnum(AMOUNT_TYPES),
  minQuantity: optionalInteger(0, MAX_INT4),
  unitPrice: optionalDecimal({ minimum: 0 }),
  lineDiscountPercent: optionalDecimal({ minimum: 0 }),
  allowLineDiscount: optionalBoolean(),
  allowInvoiceDiscount: optionalBoolean(),
  startDate: optionalDateTime(),
  endDate: optionalDateTime(),
}, { description: 'Price rule (price list line); ruleId is its natural key and reuse overwrites every field' });

export type PriceRuleItem = Static<typeof PriceRuleItemSchema>;
