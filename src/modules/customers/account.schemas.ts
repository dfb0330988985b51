import { Type, type Static } from 'typebox';
import { nullableString, orNull } from '../../platform/schema/nullable.js';
import { nullableAmountSchema } from '../../platform/schema/amount.js';
import { ACCOUNT_STATUSES, PAYMENT_TERMS, PRICE_MODES } from './customers.schemas.js';

const unsent = 'Null when never sent';
const nullableBoolean = (description: string) => orNull(Type.Boolean(), description);
const nullableEnum = <const T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number] | null>({ type: ['string', 'null'], enum: [...values, null], description });

/** A ship-to as pushed: every field of `shipToAddresses[]`. */
export const ShipToViewSchema = Type.Object({
  shipToCode: Type.String(),
  shipToName: nullableString(unsent),
  shipToAddress1: nullableString(unsent),
  shipToAddress2: nullableString(unsent),
  shipToPostCode: nullableString(unsent),
  shipToCity: nullableString(unsent),
  shipToState: nullableString(unsent),
  shipToCountryRegionCode: nullableString(unsent),
  taxLiable: nullableBoolean('Overrides the account\'s taxLiable when not null'),
  taxAreaCode: nullableString('Overrides the account\'s taxAreaCode when not null'),
  isFirstNations: nullableBoolean(unsent),
});

/**
 * The account as pushed (every `account` field of "Customer item", by its interface name) and its
 * ship-tos: GET /account's fields before those the ledger adds (ledger.schemas.ts composes them).
 */
export const AccountAsPushedSchema = Type.Object({
  accountNo: Type.String(),
  name: Type.String(),
  status: Type.Unsafe<(typeof ACCOUNT_STATUSES)[number]>({ type: 'string', enum: [...ACCOUNT_STATUSES], description: 'Only Active may transact' }),
  paymentTermsCode: nullableEnum(PAYMENT_TERMS, unsent),
  billToAddress1: nullableString(unsent),
  billToAddress2: nullableString(unsent),
  billToPostCode: nullableString(unsent),
  billToCity: nullableString(unsent),
  billToState: nullableString(unsent),
  billToCountryRegionCode: nullableString(unsent),
  billToCountryRegionName: nullableString(unsent),
  phoneNo: nullableString(unsent),
  email: nullableString(unsent),
  defaultShipToCode: nullableString('The ship-to preselected at checkout; null when never sent'),
  primaryContactNo: nullableString(unsent),
  creditLimit: nullableAmountSchema('As pushed; the service never calculates it'),
  creditBalance: nullableAmountSchema('As pushed; the service never calculates it'),
  priceMode: nullableEnum(PRICE_MODES, 'Null when never sent, which prices as Standard'),
  priceGroup: nullableString(unsent),
  discGroup: nullableString(unsent),
  allowedBrands: nullableString('Comma-separated brand codes; null or blank: every brand that is not restricted'),
  indentBrands: nullableString('Comma-separated brand codes added to the allowed set'),
  taxLiable: nullableBoolean(unsent),
  taxAreaCode: nullableString(unsent),
  gstBusinessPostingGroup: nullableString(unsent),
  shipToAddresses: Type.Array(ShipToViewSchema, { description: 'Every ship-to of the account, by shipToCode (UTF-16 code-unit order)' }),
});

export type ShipToView = Static<typeof ShipToViewSchema>;
export type AccountAsPushed = Static<typeof AccountAsPushedSchema>;
