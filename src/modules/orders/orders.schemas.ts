import { Type, type Static } from 'typebox';
import { MAX_INT4, optionalDateTime, optionalString, requiredEnum, requiredInteger, requiredString } from '../../platform/schema/fields.js';
import { AMOUNT_PATTERN } from '../../platform/schema/amount.js';
import { nullableString, orNull } from '../../platform/schema/nullable.js';
import { MAX_PAGE } from '../../platform/schema/query-params.js';
import { LINE_STATUSES } from './orders.engine.js';

// A quote's and an order's basket limits, defined here only: the portal's basket (the baskets
// module) keeps within them, so every basket it holds can be quoted and ordered.

/** Lines per basket (issue 13). */
export const MAX_BASKET_LINES = 500;

/** A line's quantity: at least 1, at most what the order_lines column holds. */
export const MAX_LINE_QUANTITY = MAX_INT4;

/** A customer's purchase-order number: the length of a ledger entry's externalDocumentNo, where the ERP echoes it. */
export const CUSTOMER_REFERENCE_LENGTH = 35;

const BasketLineSchema = Type.Object({
  sku: requiredString(20),
  quantity: requiredInteger(1, MAX_LINE_QUANTITY),
});

const basketFields = {
  shipToCode: requiredString(20),
  lines: Type.Array(BasketLineSchema, {
    minItems: 1, maxItems: MAX_BASKET_LINES, description: `1 to ${MAX_BASKET_LINES} lines; a SKU may appear on several lines`,
  }),
};

export const QuoteBodySchema = Type.Object(basketFields);
export type QuoteBody = Static<typeof QuoteBodySchema>;

export const OrderBodySchema = Type.Object({
  ...basketFields,
  customerReference: optionalString(CUSTOMER_REFERENCE_LENGTH),
});
export type OrderBody = Static<typeof OrderBodySchema>;

/*
 * Literal choices are `enum`s, never unions of constants: the serializer answers an `anyOf` by
 * running a validator on every value (a quote has 20 lines of them).
 */

/**
 * Money and rates as text with 4 decimal places. A document amount (line, tax, freight, totals) is
 * at the currency's minor unit, so for AUD its last two places are 0 ("65.2600"): decisions §6.
 */
const Amount = (description?: string) => Type.String({ pattern: AMOUNT_PATTERN, ...(description ? { description } : {}) });
/** An amount at the minor unit's places: "65.26" (AUD), "65" (JPY), "65.260" (KWD). */
const DisplayAmount = Type.String({ pattern: '^-?[0-9]+(\\.[0-9]{1,4})?$' });
const nullableAmount = (description: string) => orNull(Type.String({ pattern: AMOUNT_PATTERN }), description);

export const TotalsSchema = Type.Object({
  net: Amount('Σ line amounts, before tax'),
  tax: Amount('Σ line taxes; freight is not taxed'),
  freight: Amount('The freight charge, rounded to the currency\'s minor unit; 0 when shipping could not be quoted'),
  total: Amount('net + tax + freight'),
  display: Type.Object({ net: DisplayAmount, tax: DisplayAmount, freight: DisplayAmount, total: DisplayAmount }, {
    description: 'The same four written with the currency\'s minor unit of places ("65.26" in AUD). An order placed before '
      + 'amounts were rounded to the minor unit keeps its 4-place amounts; display rounds them half away from zero',
  }),
});

export const PricingSchema = Type.Object({
  basis: Type.Unsafe<'rule' | 'list' | 'none'>({
    type: 'string', enum: ['rule', 'list', 'none'],
    description: 'rule: a Price rule set the price; list: the product list price; none: no price determinable',
  }),
  listPrice: nullableAmount('The product list price'),
  priceRuleId: nullableString('The Price rule that set the price'),
  discountRuleId: nullableString('The Discount rule applied'),
  lineDiscountPercent: nullableAmount('The discount applied, in percent'),
});

export const TaxSchema = Type.Object({
  amount: Amount('The line amount × ratePercent / 100, rounded once to the currency\'s minor unit, half away from zero'),
  ratePercent: nullableAmount('The rate applied (Σ of the jurisdictions), null when untaxed'),
  basis: requiredEnum(['Gst', 'Jurisdictions', 'NotLiable', 'FirstNations', 'Untaxed'] as const),
  reason: nullableString('Why the line is not taxed (not liable, exempt, or the missing link of the chain)'),
  taxAreaCode: nullableString('The tax area used (chain)'),
  components: Type.Array(Type.Object({
    code: Type.String({ description: 'Jurisdiction code, or businessPostingGroup/productPostingGroup for GST' }),
    ratePercent: Amount(),
    effectiveDate: orNull(Type.String({ format: 'date' }), 'The rate\'s effective date; null for a rate in effect since always'),
  })),
});

export const AvailabilitySchema = Type.Object({
  available: Type.Integer({ description: 'On hand − reserved over every location (never below 0), before this basket' }),
  fromStock: Type.Integer({ description: 'Of this line, the quantity available now (earlier lines of the same SKU served first)' }),
  backOrder: Type.Integer({ description: 'Of this line, the quantity not available now' }),
  incomingDate: orNull(Type.String({ format: 'date' }), 'The earliest expected receipt date by which the incoming quantity covers the back order; null when nothing is on back order or nothing expected covers it'),
});

export const ShippingSchema = Type.Object({
  status: requiredEnum(['Quoted', 'Unquotable', 'Unshippable'] as const),
  reason: Type.Optional(Type.String()),
  amount: Type.Optional(Amount('The freight charge, rounded once to the currency\'s minor unit')),
  method: Type.Optional(Type.String()),
  agentCode: Type.Optional(Type.String()),
  serviceCode: Type.Optional(Type.String()),
  routingId: Type.Optional(Type.String()),
  basis: Type.Optional(requiredEnum(['Rate', 'PerPackage'] as const)),
  rateId: Type.Optional(orNull(Type.String(), 'The freight rate row charged (basis Rate)')),
  packages: Type.Optional(Type.Array(Type.Object({
    packageTypeId: Type.String(), description: orNull(Type.String(), 'Package type name'), count: Type.Integer(), freightCost: Amount('Cost of one package'),
  }))),
  weight: Type.Optional(Amount('Consignment weight: Σ unit weight × quantity')),
  value: Type.Optional(Amount('Consignment value: the net, Σ line amounts')),
}, { description: 'Quoted, or why not: Unquotable (no postcode routing) or Unshippable (a band gap, an item no package holds)' });

export const QuoteLineSchema = Type.Object({
  lineNumber: Type.Integer(),
  sku: Type.String(),
  name: nullableString('Product name'),
  quantity: Type.Integer(),
  unitPrice: nullableAmount('Net unit price at this quantity (quantity breaks apply), exact to 4 places; null when none is determinable'),
  lineAmount: nullableAmount('quantity × unitPrice, rounded once to the currency\'s minor unit, half away from zero; null when unpriced'),
  pricing: PricingSchema,
  availability: AvailabilitySchema,
  tax: TaxSchema,
});

export const QuoteSchema = Type.Object({
  currency: Type.String(),
  shipToCode: Type.String(),
  pricedAt: Type.String({ format: 'date-time' }),
  day: Type.String({ format: 'date', description: 'The site day (SITE_TIME_ZONE) whose tax rates apply' }),
  orderable: Type.Boolean({ description: 'Whether POST /orders would accept this basket now' }),
  reasons: Type.Array(Type.String(), { description: 'What stops this basket being ordered (empty when orderable)' }),
  lines: Type.Array(QuoteLineSchema),
  shipping: ShippingSchema,
  totals: TotalsSchema,
});
export type Quote = Static<typeof QuoteSchema>;
export type QuoteLine = Static<typeof QuoteLineSchema>;
export type Totals = Static<typeof TotalsSchema>;

const StatusSchema = requiredEnum(LINE_STATUSES);

export const OrderLineSchema = Type.Object({
  orderLineId: Type.String({ format: 'uuid' }),
  lineNumber: Type.Integer(),
  sku: Type.String(),
  description: nullableString('Product name when ordered'),
  quantity: Type.Integer({ description: 'Ordered' }),
  unitPrice: nullableAmount('Net unit price, exact to 4 places'),
  lineAmount: Amount('quantity × unitPrice, rounded once to the currency\'s minor unit (an order placed before that rule: as placed)'),
  taxAmount: Amount('The line\'s tax, rounded once to the currency\'s minor unit (an order placed before that rule: as placed)'),
  pricing: PricingSchema,
  tax: TaxSchema,
  invoicedQuantity: Type.Integer(),
  shippedQuantity: Type.Integer(),
  cancelledQuantity: Type.Integer(),
  status: StatusSchema,
  lastUpdatedAt: orNull(Type.String({ format: 'date-time' }), 'lastUpdatedAt of the ERP update the quantities come from'),
  lastUpdatedReference: nullableString('The ERP document behind the last change'),
});

export const ChargeLineSchema = Type.Object({
  orderLineId: Type.String({ format: 'uuid' }),
  lineNumber: Type.Integer(),
  chargeType: Type.String({ description: 'Freight' }),
  description: nullableString('What the charge is for'),
  amount: Amount(),
  taxAmount: Amount('Freight is not taxed: 0'),
});

export const ErpStateSchema = Type.Object({
  state: requiredEnum(['Held', 'Queued', 'Accepted', 'Refused'] as const),
  documentNo: nullableString('The ERP\'s document number once Accepted'),
  reason: nullableString('Why Refused, or the last failure while Queued'),
  attempts: Type.Integer(),
});

/** A portal user, as an order names who placed and who approved it. */
const PersonSchema = Type.Object({ name: Type.String(), email: Type.String() });

export const APPROVAL_STATES = ['AwaitingApproval', 'Approved', 'Declined', 'Withdrawn'] as const;

/** An order placed in the portal over its buyer's order limit (issue 27): submitted for approval, then approved, declined or withdrawn. */
export const ApprovalSchema = Type.Object({
  state: requiredEnum(APPROVAL_STATES),
  submittedAt: Type.String({ format: 'date-time', description: 'When its buyer submitted it; placedAt is when it was approved' }),
  decidedAt: orNull(Type.String({ format: 'date-time' }), 'When it was approved, declined or withdrawn'),
  reason: nullableString('Why it was declined'),
});

export const OrderSchema = Type.Object({
  orderNumber: Type.String(),
  accountNo: Type.String(),
  shipToCode: Type.String(),
  customerReference: nullableString('The customer\'s purchase-order number'),
  currency: Type.String(),
  placedAt: Type.String({ format: 'date-time' }),
  status: StatusSchema,
  lines: Type.Array(OrderLineSchema),
  charges: Type.Array(ChargeLineSchema),
  shipping: ShippingSchema,
  totals: TotalsSchema,
  erp: ErpStateSchema,
  placedBy: orNull(PersonSchema, 'The portal user who placed the order; null for an order placed through the public API'),
  approvedBy: orNull(PersonSchema, 'The Administrator who approved it, for an order that was over its buyer\'s order limit; else null'),
  approval: orNull(ApprovalSchema, 'Null unless the order was over its buyer\'s order limit in the portal; through the API only approved ones are seen'),
});
export type Order = Static<typeof OrderSchema>;
export type OrderApproval = Static<typeof ApprovalSchema>;

export const ORDER_PAGE_SIZE = { default: 20, max: 100 } as const;

export const OrderListQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: ORDER_PAGE_SIZE.max, default: ORDER_PAGE_SIZE.default }),
});

export const OrderListSchema = Type.Object({
  data: Type.Array(OrderSchema, { description: 'Newest first' }),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  total: Type.Integer(),
});

/** PUT /trading/order-line-updates item (interface "Order line update"). */
export const OrderLineUpdateItemSchema = Type.Object({
  orderLineId: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'uuid' })),
  orderNumber: optionalString(20),
  lineNumber: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: MAX_INT4 })),
  invoicedQuantity: requiredInteger(0, MAX_INT4),
  shippedQuantity: requiredInteger(0, MAX_INT4),
  cancelledQuantity: requiredInteger(0, MAX_INT4),
  lastUpdatedAt: optionalDateTime(),
  lastUpdatedReference: optionalString(50),
});
export type OrderLineUpdateItem = Static<typeof OrderLineUpdateItemSchema>;
