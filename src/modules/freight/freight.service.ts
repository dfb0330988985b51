import { Dec, toDecimalText } from '../../platform/decimal.js';
import type { BatchDefinition } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import type { Queryable } from '../../platform/db/pool.js';
import type { FreightData } from './freight.engine.js';
import { loadFreightData as readFreightData, upsertFreightRates, upsertPackageTypes, upsertPostcodeRoutes } from './freight.repository.js';
import {
  FreightRateItemSchema, PackageTypeItemSchema, PostcodeRouteItemSchema,
  type FreightRateItem, type PackageTypeItem, type PostcodeRouteItem,
} from './freight.schemas.js';

/** RFC 3339 as the shared `date-time` format admits it (platform/schema/formats.ts), read to compare instants. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;

type Instant = { seconds: Dec } | { problem: string };

/** Seconds since the epoch, exact to every fractional digit sent, so that ordering never rounds. */
function readInstant(text: string): Instant {
  const m = DATE_TIME.exec(text);
  if (!m) return { problem: 'must be a date-time (RFC 3339, e.g. 2026-01-31T00:00:00Z)' };
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours = '00', offsetMinutes = '00'] = m;
  const utc = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0001–0099 to 1901–1999.
  utc.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  utc.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60);
  return { seconds: new Dec(utc.getTime() / 1000 - offset).plus(`0.${fraction || '0'}`) };
}

/** A band whose upper bound is below its lower bound matches nothing; equal bounds are a valid (empty, half-open) band. */
function bandProblem<T extends object>(item: T, lower: keyof T & string, upper: keyof T & string): ItemError[] {
  const low = item[lower] as number | string | null | undefined;
  const high = item[upper] as number | string | null | undefined;
  if (low === null || low === undefined || high === null || high === undefined) return [];
  return new Dec(high).lessThan(low)
    ? [{ path: `/${upper}`, message: `must not be less than ${lower} (${toDecimalText(low)})` }]
    : [];
}

function checkFreightRate(item: FreightRateItem): ItemError[] {
  const problems = [
    ...bandProblem(item, 'minWeight', 'maxWeight'),
    ...bandProblem(item, 'minInvoiceValue', 'maxInvoiceValue'),
  ];
  const instants: Partial<Record<'startDate' | 'endDate', Dec>> = {};
  for (const field of ['startDate', 'endDate'] as const) {
    const text = item[field];
    if (text === null || text === undefined) continue;
    const instant = readInstant(text);
    if ('problem' in instant) problems.push({ path: `/${field}`, message: instant.problem });
    else instants[field] = instant.seconds;
  }
  if (instants.startDate && instants.endDate?.lessThan(instants.startDate)) {
    problems.push({ path: '/endDate', message: `must not be before startDate (${String(item.startDate)})` });
  }
  return problems;
}

export const postcodeRouteBatch: BatchDefinition<PostcodeRouteItem> = {
  name: 'fulfilment/postcode-routing',
  itemSchema: PostcodeRouteItemSchema,
  keyFields: ['/id'],
  keyOf: (item) => item.id,
  write: upsertPostcodeRoutes,
};

export const freightRateBatch: BatchDefinition<FreightRateItem> = {
  name: 'fulfilment/freight-rates',
  itemSchema: FreightRateItemSchema,
  keyFields: ['/id'],
  keyOf: (item) => item.id,
  check: checkFreightRate,
  write: upsertFreightRates,
};

export const packageTypeBatch: BatchDefinition<PackageTypeItem> = {
  name: 'fulfilment/airbags',
  itemSchema: PackageTypeItemSchema,
  keyFields: ['/id'],
  keyOf: (item) => item.id,
  write: upsertPackageTypes,
};

/**
 * What the freight engine quotes a destination from: the country's rates and package types, and the
 * routing of `postcode` (all of the country's without one), read in one statement. The orders
 * module keeps it per reference version (reference-cache.ts).
 */
export function loadFreightData(q: Queryable, countryRegionCode: string, postcode?: string | null): Promise<FreightData> {
  return readFreightData(q, countryRegionCode, postcode);
}
