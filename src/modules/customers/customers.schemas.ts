import { Type, type Static } from 'typebox';
import {
  optionalBoolean, optionalDecimal, optionalEnum, optionalString, requiredEmail, requiredEnum, requiredString,
} from '../../platform/schema/fields.js';

/** Enumerated literals of decisions §2; case-sensitive. Only `Active` may transact. */
export const ACCOUNT_STATUSES = ['Active', 'OnHold', 'Blocked', 'Closed'] as const;
export const PAYMENT_TERMS = ['COD', 'PREPAID', 'NET7', 'NET14', 'NET30', 'NET45', 'NET60', 'EOM', 'EOM30'] as const;
export const PRICE_MODES = ['Standard', 'ContractOnly', 'ListOnly'] as const;

export const AccountSchema = Type.Object({
  accountNo: requiredString(20),
  name: requiredString(100),
  status: requiredEnum(ACCOUNT_STATUSES),
  paymentTermsCode: optionalEnum(PAYMENT_TERMS),
  billToAddress1: optionalString(100),
  billToAddress2: optionalString(100),
  billToPostCode: optionalString(20),
  billToCity: optionalString(50),
  billToState: optionalString(50),
  billToCountryRegionCode: optionalString(10),
  billToCountryRegionName: optionalString(50),
  phoneNo: optionalString(30),
  // Display only (typically accounts payable), so not format-checked; the admin email is.
  email: optionalString(254),
  defaultShipToCode: optionalString(20),
  primaryContactNo: optionalString(20),
  creditLimit: optionalDecimal(),
  creditBalance: optionalDecimal(),
  priceMode: optionalEnum(PRICE_MODES),
  priceGroup: optionalString(20),
  discGroup: optionalString(20),
  allowedBrands: optionalString(500),
  indentBrands: optionalString(500),
  taxLiable: optionalBoolean(),
  taxAreaCode: optionalString(20),
  gstBusinessPostingGroup: optionalString(50),
}, { description: 'The customer account; accountNo is its natural key' });

export const ShipToSchema = Type.Object({
  shipToCode: requiredString(20),
  shipToName: optionalString(100),
  shipToAddress1: optionalString(100),
  shipToAddress2: optionalString(100),
  shipToPostCode: optionalString(20),
  shipToCity: optionalString(50),
  shipToState: optionalString(50),
  shipToCountryRegionCode: optionalString(10),
  taxLiable: optionalBoolean(),
  taxAreaCode: optionalString(20),
  isFirstNations: optionalBoolean(),
}, { description: 'A delivery address of the account; shipToCode is unique within the account' });

export const AdminSchema = Type.Object({
  name: requiredString(100),
  email: requiredEmail(254),
}, { description: 'The portal user to create or link for this account and invite' });

export const CustomerItemSchema = Type.Object({
  account: AccountSchema,
  shipToAddresses: Type.Optional(Type.Unsafe<Array<Static<typeof ShipToSchema>> | null>({
    type: ['array', 'null'],
    items: ShipToSchema,
    description: 'A snapshot: ship-tos stored but not sent are removed; [] removes all; not sent (or null) leaves them untouched',
  })),
  // One `type` list rather than anyOf, so a bad admin gets one message per problem, not one per branch.
  admin: Type.Optional(Type.Unsafe<Static<typeof AdminSchema> | null>({ ...AdminSchema, type: ['object', 'null'] })),
}, { description: 'Customer item (CustomerEnvelopeDto); a sent contacts[] is ignored' });

export type AccountItem = Static<typeof AccountSchema>;
export type ShipToItem = Static<typeof ShipToSchema>;
export type CustomerItem = Static<typeof CustomerItemSchema>;
