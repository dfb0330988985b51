import type { Queryable } from '../../platform/db/pool.js';
import { defineTable } from '../../platform/db/upsert.js';
import type { FreightRateItem, PackageTypeItem, PostcodeRouteItem } from './freight.schemas.js';

/** Interface field → column, in table order. The upsert statements below are generated from them. */
const POSTCODE_ROUTE_COLUMNS = [
  ['id', 'id', 'varchar(50)'],
  ['countryRegionCode', 'country_region_code', 'varchar(10)'],
  ['postcode', 'postcode', 'varchar(20)'],
  ['defaultRoadAgentCode', 'default_road_agent_code', 'varchar(20)'],
  ['defaultRoadServiceCode', 'default_road_service_code', 'varchar(20)'],
  ['defaultAirAgentCode', 'default_air_agent_code', 'varchar(20)'],
  ['defaultAirServiceCode', 'default_air_service_code', 'varchar(20)'],
  ['defaultMethod', 'default_method', 'varchar(10)'],
] as const satisfies ReadonlyArray<readonly [keyof PostcodeRouteItem, string, string]>;

const FREIGHT_RATE_COLUMNS = [
  ['id', 'id', 'varchar(50)'],
  ['countryRegionCode', 'country_region_code', 'varchar(10)'],
  ['shippingAgentCode', 'shipping_agent_code', 'varchar(20)'],
  ['shippingAgentServiceCode', 'shipping_agent_service_code', 'varchar(20)'],
  ['minWeight', 'min_weight', 'numeric'],
  ['maxWeight', 'max_weight', 'numeric'],
  ['minInvoiceValue', 'min_invoice_value', 'numeric'],
  ['maxInvoiceValue', 'max_invoice_value', 'numeric'],
  ['price', 'price', 'numeric'],
  // timestamptz keeps the instant, not the offset it was written with: +10:00 and Z forms of one instant are equal.
  ['startDate', 'start_date', 'timestamptz'],
  ['endDate', 'end_date', 'timestamptz'],
] as const satisfies ReadonlyArray<readonly [keyof FreightRateItem, string, string]>;

const PACKAGE_TYPE_COLUMNS = [
  ['id', 'id', 'varchar(50)'],
  ['countryRegionCode', 'country_region_code', 'varchar(10)'],
  ['description', 'description', 'varchar(100)'],
  ['length', 'length', 'numeric'],
  ['width', 'width', 'numeric'],
  ['height', 'height', 'numeric'],
  ['weight', 'weight', 'numeric'],
  ['freightCost', 'freight_cost', 'numeric'],
] as const satisfies ReadonlyArray<readonly [keyof PackageTypeItem, string, string]>;

const postcodeRoutes = defineTable({ table: 'postcode_routes', columns: POSTCODE_ROUTE_COLUMNS, key: ['id'] });
const freightRates = defineTable({ table: 'freight_rates', columns: FREIGHT_RATE_COLUMNS, key: ['id'] });
const packageTypes = defineTable({ table: 'package_types', columns: PACKAGE_TYPE_COLUMNS, key: ['id'] });

/* Every field is replaced (a field not sent becomes null); `changed_at` moves only on a real change. */

export async function upsertPostcodeRoutes(tx: Queryable, items: readonly PostcodeRouteItem[]): Promise<void> {
  await postcodeRoutes.upsert(tx, items);
}

export async function upsertFreightRates(tx: Queryable, items: readonly FreightRateItem[]): Promise<void> {
  await freightRates.upsert(tx, items);
}

export async function upsertPackageTypes(tx: Queryable, items: readonly PackageTypeItem[]): Promise<void> {
  await packageTypes.upsert(tx, items);
}
