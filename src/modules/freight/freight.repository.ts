import type { Queryable } from '../../platform/db/pool.js';
import { defineTable } from '../../platform/db/upsert.js';
import {
  ASCII_LOWER, ASCII_UPPER, WHITE_SPACE, normaliseCountry, normalisePostcode,
  type FreightData, type FreightRate, type PackageType, type RoutingRow,
} from './freight.engine.js';
import { DEFAULT_METHODS, type FreightRateItem, type PackageTypeItem, type PostcodeRouteItem } from './freight.schemas.js';

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

/**
 * A SQL string literal of `text` with every character outside printable ASCII written as a
 * `\XXXX` escape (`U&'…'`), so the statement stays readable in logs and is the same text the
 * migration spells out.
 */
function sqlLiteral(text: string): string {
  let body = '';
  for (const c of text) {
    const code = c.codePointAt(0) as number;
    if (code > 0xffff) throw new Error('sqlLiteral: characters outside the BMP need \\+XXXXXX');
    body += c === "'" ? "''" : c === '\\' ? '\\\\' : code >= 0x20 && code < 0x7f ? c : `\\${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `U&'${body}'`;
}

/**
 * The fold the engine applies (`normaliseCountry`, `normalisePostcode`), written in SQL with the
 * same characters as constants, not parameters: the index postcode_routes_folded_idx
 * (migrations/1764000002500_postcode_routes_folded_index.sql) holds exactly these expressions, and
 * the planner uses it only for an identical expression. Without it every quote read every routing
 * row of every country.
 */
const FOLDED_COUNTRY = `btrim(translate(country_region_code, ${sqlLiteral(ASCII_LOWER)}, ${sqlLiteral(ASCII_UPPER)}), ${sqlLiteral(WHITE_SPACE)})`;
const FOLDED_POSTCODE = `translate(postcode, ${sqlLiteral(ASCII_LOWER + WHITE_SPACE)}, ${sqlLiteral(ASCII_UPPER)})`;

/**
 * A `timestamptz` keeps microseconds and a JS `Date` only milliseconds: a start is rounded up and
 * an end down to the millisecond, which keeps both bounds inclusive and exact for any `Date`
 * instant (as `loadAllRules` does for price rules). Decimals travel as text inside the JSON, so
 * they keep their 4 places and never pass through a binary float. With a postcode the routing rows
 * are narrowed in a statement of its own (`$2`), so that no plan has to allow for a missing one.
 * Both are named, so each connection plans them once rather than on every quote.
 */
const freightDataSql = (byPostcode: boolean): string => `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
            'id', id, 'countryRegionCode', country_region_code, 'postcode', postcode,
            'defaultRoadAgentCode', default_road_agent_code, 'defaultRoadServiceCode', default_road_service_code,
            'defaultAirAgentCode', default_air_agent_code, 'defaultAirServiceCode', default_air_service_code,
            'defaultMethod', default_method) ORDER BY id COLLATE "C"), '[]'::json)
     FROM postcode_routes
    WHERE ${FOLDED_COUNTRY} = $1${byPostcode ? ` AND ${FOLDED_POSTCODE} = $2` : ''}) AS routes,
  (SELECT coalesce(json_agg(json_build_object(
            'id', id, 'countryRegionCode', country_region_code, 'shippingAgentCode', shipping_agent_code,
            'shippingAgentServiceCode', shipping_agent_service_code,
            'minWeight', min_weight::text, 'maxWeight', max_weight::text,
            'minInvoiceValue', min_invoice_value::text, 'maxInvoiceValue', max_invoice_value::text,
            'price', price::text,
            'startMs', ceil(extract(epoch FROM start_date) * 1000)::bigint,
            'endMs', floor(extract(epoch FROM end_date) * 1000)::bigint) ORDER BY id COLLATE "C"), '[]'::json)
     FROM freight_rates
    WHERE ${FOLDED_COUNTRY} = $1) AS rates,
  (SELECT coalesce(json_agg(json_build_object(
            'id', id, 'countryRegionCode', country_region_code, 'description', description,
            'length', length::text, 'width', width::text, 'height', height::text,
            'weight', weight::text, 'freightCost', freight_cost::text) ORDER BY id COLLATE "C"), '[]'::json)
     FROM package_types
    WHERE ${FOLDED_COUNTRY} = $1) AS package_types`;

const FREIGHT_DATA = { name: 'freight-data-v2', text: freightDataSql(false) };
const FREIGHT_DATA_BY_POSTCODE = { name: 'freight-data-by-postcode-v2', text: freightDataSql(true) };

/** The statement `loadFreightData` runs, or undefined when the country code is blank (nothing can match). */
export function freightDataQuery(countryRegionCode: string, postcode?: string | null): { name: string; text: string; values: string[] } | undefined {
  const country = normaliseCountry(countryRegionCode);
  if (country === '') return undefined;
  return postcode === undefined || postcode === null
    ? { ...FREIGHT_DATA, values: [country] }
    : { ...FREIGHT_DATA_BY_POSTCODE, values: [country, normalisePostcode(postcode)] };
}

type RateJson = Omit<FreightRate, 'startDate' | 'endDate'> & { startMs: number | null; endMs: number | null };
type RoutingJson = Omit<RoutingRow, 'defaultMethod'> & { defaultMethod: string };

const isDefaultMethod = (value: string): value is RoutingRow['defaultMethod'] => (DEFAULT_METHODS as readonly string[]).includes(value);

/**
 * The routing rows, freight rates and package types of one country (code matched as the engine
 * matches it: trimmed, ASCII case folded), in one statement and so one round trip and one snapshot.
 * With `postcode`, only the routing rows of that postcode: a country may have thousands, and a
 * quote needs one destination's.
 */
export async function loadFreightData(q: Queryable, countryRegionCode: string, postcode?: string | null): Promise<FreightData> {
  const query = freightDataQuery(countryRegionCode, postcode);
  if (query === undefined) return { routes: [], rates: [], packageTypes: [] };
  const { rows } = await q.query<{ routes: RoutingJson[]; rates: RateJson[]; package_types: PackageType[] }>(query);
  const row = rows[0];
  if (row === undefined) throw new Error('the freight data query returned no row');
  return {
    routes: row.routes.map((route) => {
      // Ingestion only stores Road and Air; quoting with anything else could route to the wrong carrier.
      if (!isDefaultMethod(route.defaultMethod)) throw new Error(`postcode routing row ${route.id} has an unknown default_method "${route.defaultMethod}"`);
      return { ...route, defaultMethod: route.defaultMethod };
    }),
    // Field by field: a rest pattern and a spread per rate took half of this function's CPU time (a country holds ~100 rates, read on every quote).
    rates: row.rates.map((r): FreightRate => ({
      id: r.id,
      countryRegionCode: r.countryRegionCode,
      shippingAgentCode: r.shippingAgentCode,
      shippingAgentServiceCode: r.shippingAgentServiceCode,
      minWeight: r.minWeight,
      maxWeight: r.maxWeight,
      minInvoiceValue: r.minInvoiceValue,
      maxInvoiceValue: r.maxInvoiceValue,
      price: r.price,
      startDate: r.startMs === null ? null : new Date(r.startMs),
      endDate: r.endMs === null ? null : new Date(r.endMs),
    })),
    packageTypes: row.package_types,
  };
}
