import { Type, type Static } from 'typebox';
import {
  optionalDateTime, optionalDecimal, optionalString, requiredEnum, requiredString,
} from '../../platform/schema/fields.js';

export const DEFAULT_METHODS = ['Road', 'Air'] as const;

/** Lengths follow the columns of migrations/1763900000200_fulfilment.sql. */
const ID_LENGTH = 50;
const COUNTRY_LENGTH = 10;
const CARRIER_CODE_LENGTH = 20;

/** Postcode routing row: which carrier and service serve a destination postcode. */
export const PostcodeRouteItemSchema = Type.Object({
  id: requiredString(ID_LENGTH),
  countryRegionCode: requiredString(COUNTRY_LENGTH),
  postcode: requiredString(20),
  defaultRoadAgentCode: optionalString(CARRIER_CODE_LENGTH),
  defaultRoadServiceCode: optionalString(CARRIER_CODE_LENGTH),
  defaultAirAgentCode: optionalString(CARRIER_CODE_LENGTH),
  defaultAirServiceCode: optionalString(CARRIER_CODE_LENGTH),
  defaultMethod: requiredEnum(DEFAULT_METHODS),
}, { description: 'Postcode routing row; keyed by id' });

export type PostcodeRouteItem = Static<typeof PostcodeRouteItemSchema>;

/**
 * Freight rate row. Bands include their lower bound and exclude their upper bound; a missing bound
 * is open. The agent and service codes are not checked against postcode routing: either may arrive first.
 */
export const FreightRateItemSchema = Type.Object({
  id: requiredString(ID_LENGTH),
  countryRegionCode: requiredString(COUNTRY_LENGTH),
  shippingAgentCode: requiredString(CARRIER_CODE_LENGTH),
  shippingAgentServiceCode: requiredString(CARRIER_CODE_LENGTH),
  minWeight: optionalDecimal({ minimum: 0 }),
  maxWeight: optionalDecimal({ minimum: 0 }),
  minInvoiceValue: optionalDecimal({ minimum: 0 }),
  maxInvoiceValue: optionalDecimal({ minimum: 0 }),
  price: optionalDecimal({ minimum: 0 }),
  startDate: optionalDateTime(),
  endDate: optionalDateTime(),
}, { description: 'Freight rate row; keyed by id' });

export type FreightRateItem = Static<typeof FreightRateItemSchema>;

/** Package type (airbag): a carton or satchel size charged per package. */
export const PackageTypeItemSchema = Type.Object({
  id: requiredString(ID_LENGTH),
  countryRegionCode: requiredString(COUNTRY_LENGTH),
  description: optionalString(100),
  length: optionalDecimal({ minimum: 0 }),
  width: optionalDecimal({ minimum: 0 }),
  height: optionalDecimal({ minimum: 0 }),
  weight: optionalDecimal({ minimum: 0 }),
  freightCost: optionalDecimal({ minimum: 0 }),
}, { description: 'Package type (airbag) row; keyed by id' });

export type PackageTypeItem = Static<typeof PackageTypeItemSchema>;
