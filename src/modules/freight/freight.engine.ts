import { LRUCache } from 'lru-cache';
import { Dec, toUnits, unitsOf, unitsText } from '../../platform/decimal.js';
import { AMOUNT_PLACES, roundToMinorUnit } from '../../platform/money.js';

/**
 * Freight for one consignment (decisions §6), as pure functions: the repository loads a country's
 * routing rows, rates and package types in one query (`loadFreightData`), and everything that
 * decides the charge happens here, where it can be tested and explained without a database.
 *
 * Route: ship-to country and postcode → postcode routing row → its default method's agent and
 * service. Charge: the cheapest rate of that country, agent and service in effect whose weight band
 * holds the consignment weight and whose value band holds its value; or, where the country has
 * package types and the service has no weight-band rates, the packages that hold the items.
 */

export interface RoutingRow {
  id: string;
  countryRegionCode: string;
  postcode: string;
  defaultRoadAgentCode: string | null;
  defaultRoadServiceCode: string | null;
  defaultAirAgentCode: string | null;
  defaultAirServiceCode: string | null;
  defaultMethod: 'Road' | 'Air';
}

export interface FreightRate {
  id: string;
  countryRegionCode: string;
  shippingAgentCode: string;
  shippingAgentServiceCode: string;
  minWeight: string | null;
  maxWeight: string | null;
  minInvoiceValue: string | null;
  maxInvoiceValue: string | null;
  price: string | null;
  startDate: Date | null;
  endDate: Date | null;
}

export interface PackageType {
  id: string;
  countryRegionCode: string;
  description: string | null;
  length: string | null;
  width: string | null;
  height: string | null;
  weight: string | null;
  freightCost: string | null;
}

export interface FreightData {
  routes: RoutingRow[];
  rates: FreightRate[];
  packageTypes: PackageType[];
}

/** One basket line: `quantity` units of a product, with the product's unit weight and dimensions. */
export interface ConsignmentItem {
  sku: string;
  quantity: number;
  weight: string | null;
  length: string | null;
  width: string | null;
  height: string | null;
}

export interface FreightInput {
  countryRegionCode: string | null;
  postcode: string | null;
  items: readonly ConsignmentItem[];
  /** Σ net line amounts before tax, decimal text. */
  value: string;
  at: Date;
  /** The places the charge is rounded to: the site currency's minor unit (platform/money.ts). */
  minorUnit: number;
  /** May hold rows of other countries and postcodes: only the destination's are used. */
  data: FreightData;
}

export interface PackageCharge {
  packageTypeId: string;
  description: string | null;
  count: number;
  /** The charge for one package of this type (its freightCost), 4 places. */
  freightCost: string;
  /** count × freightCost rounded once to the currency's minor unit, written with 4 places. */
  amount: string;
}

export type Shipping =
  | {
    status: 'Quoted';
    amount: string;
    method: 'Road' | 'Air';
    agentCode: string;
    serviceCode: string;
    routingId: string;
    basis: 'Rate' | 'PerPackage';
    rateId: string | null;
    packages: PackageCharge[];
    weight: string;
    value: string;
  }
  | { status: 'Unquotable'; reason: string }
  | { status: 'Unshippable'; reason: string; weight: string; value: string };

const SCALE = AMOUNT_PLACES;
const fixed = (value: Dec): string => value.toFixed(SCALE, Dec.ROUND_HALF_UP);
/** A charge of `units` of 10^-4, rounded once to the minor unit (decisions §6: freight is rounded as a line amount is). */
const money = (units: bigint, minorUnit: number): string => unitsText(roundToMinorUnit(units, SCALE, minorUnit), SCALE);

/**
 * JavaScript's white space (what `\s` and `trim` remove), spelled out so that the SQL of
 * `loadFreightData` removes exactly the same characters as this engine: the two can never
 * disagree about which rows belong to a destination.
 */
export const WHITE_SPACE = '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
export const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const EDGE_SPACE = new RegExp(`^[${WHITE_SPACE}]+|[${WHITE_SPACE}]+$`, 'gu');
const ANY_SPACE = new RegExp(`[${WHITE_SPACE}]`, 'gu');
const LOWER_LETTER = /[a-z]/g;

/**
 * Case is folded for ASCII letters only: country codes and postcodes are ASCII, and a Unicode
 * fold would depend on the database's locale in SQL (a Turkish `upper('i')` is `İ`).
 */
const asciiUpper = (text: string): string => text.replace(LOWER_LETTER, (c) => c.toUpperCase());

/** Country codes seen, normalised: a quote compares every rate's and package type's code, and there are few distinct ones. */
const countries = new Map<string, string>();
const MAX_COUNTRIES_KEPT = 1000;

/** " au " → "AU". */
export function normaliseCountry(code: string): string {
  let normal = countries.get(code);
  if (normal === undefined) {
    normal = asciiUpper(code.replace(EDGE_SPACE, ''));
    if (countries.size >= MAX_COUNTRIES_KEPT) countries.clear();
    countries.set(code, normal);
  }
  return normal;
}

/** "sw1a 1aa" → "SW1A1AA": ship-tos and routing rows write the same postcode with and without spaces. */
export function normalisePostcode(postcode: string): string {
  return asciiUpper(postcode.replace(ANY_SPACE, ''));
}

const trimmed = (code: string | null): string => (code === null ? '' : code.replace(EDGE_SPACE, ''));

/** Code-unit order, independent of any collation. */
const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function quoteFreight(input: FreightInput): Shipping {
  const country = input.countryRegionCode === null ? '' : normaliseCountry(input.countryRegionCode);
  const postcode = input.postcode === null ? '' : normalisePostcode(input.postcode);
  if (country === '' || postcode === '') return { status: 'Unquotable', reason: missingDestination(country, postcode) };

  const route = findRoute(input.data.routes, country, postcode);
  if (route === undefined) {
    return {
      status: 'Unquotable',
      reason: `No postcode routing row exists for country ${country} and postcode ${postcode}, so freight to this destination cannot be quoted.`,
    };
  }
  const method = route.defaultMethod;
  const agentCode = trimmed(method === 'Road' ? route.defaultRoadAgentCode : route.defaultAirAgentCode);
  const serviceCode = trimmed(method === 'Road' ? route.defaultRoadServiceCode : route.defaultAirServiceCode);
  if (agentCode === '' || serviceCode === '') {
    return { status: 'Unquotable', reason: blankCarrier(route, method, agentCode === '', serviceCode === '') };
  }

  const weight = consignmentWeight(input.items);
  const value = new Dec(input.value);
  const service: Service = { country, agentCode, serviceCode };
  const t = input.at.getTime();
  const rates = input.data.rates.filter((rate) => normaliseCountry(rate.countryRegionCode) === country
    && trimmed(rate.shippingAgentCode) === agentCode
    && trimmed(rate.shippingAgentServiceCode) === serviceCode
    && inEffect(rate, t));
  const quoted = { method, agentCode, serviceCode, routingId: route.id };

  const hasWeightBands = rates.some((rate) => rate.minWeight !== null || rate.maxWeight !== null);
  const packageTypes = packageTypesOf(input.data, country);
  if (!hasWeightBands && packageTypes.types.length > 0) {
    const packed = packedConsignment(input.items, packageTypes);
    if ('unpackable' in packed) {
      return { status: 'Unshippable', reason: unpackableReason(packed.unpackable, packed.boxes, country), weight: fixed(weight), value: fixed(value) };
    }
    // Each type's packages are charged like an order line (count × cost, rounded once), so the
    // charges listed add up to the freight.
    const packages = packed.packages.map((p) => ({ ...p, amount: money(toUnits(p.amount, SCALE), input.minorUnit) }));
    const amount = packages.reduce((sum, p) => sum + toUnits(p.amount, SCALE), 0n);
    return {
      status: 'Quoted', amount: unitsText(amount, SCALE), ...quoted, basis: 'PerPackage', rateId: null,
      packages, weight: fixed(weight), value: fixed(value),
    };
  }

  const chosen = cheapestRate(rates, weight, value);
  if (chosen === undefined) {
    return {
      status: 'Unshippable', reason: noRateReason(rates, service, weight, value, input.at),
      weight: fixed(weight), value: fixed(value),
    };
  }
  return {
    status: 'Quoted', amount: money(toUnits(chosen.price as string, SCALE), input.minorUnit), ...quoted, basis: 'Rate', rateId: chosen.id,
    packages: [], weight: fixed(weight), value: fixed(value),
  };
}

function missingDestination(country: string, postcode: string): string {
  if (country === '' && postcode === '') {
    return 'The ship-to has neither a country (countryRegionCode) nor a postcode, so freight cannot be routed; give the ship-to both.';
  }
  if (country === '') return `The ship-to (postcode ${postcode}) has no country (countryRegionCode), so freight cannot be routed; give the ship-to its country.`;
  return `The ship-to in country ${country} has no postcode, so freight cannot be routed; give the ship-to its postcode.`;
}

/** Several rows for one destination: the lowest id, so the answer never depends on the order rows were read in. */
function findRoute(routes: readonly RoutingRow[], country: string, postcode: string): RoutingRow | undefined {
  let found: RoutingRow | undefined;
  for (const route of routes) {
    if (normaliseCountry(route.countryRegionCode) !== country || normalisePostcode(route.postcode) !== postcode) continue;
    if (found === undefined || byId(route, found) < 0) found = route;
  }
  return found;
}

function blankCarrier(route: RoutingRow, method: 'Road' | 'Air', noAgent: boolean, noService: boolean): string {
  const lower = method.toLowerCase();
  const missing = [
    ...(noAgent ? [`no ${lower} agent code (default${method}AgentCode)`] : []),
    ...(noService ? [`no ${lower} service code (default${method}ServiceCode)`] : []),
  ].join(' and ');
  return `Postcode routing row ${route.id} (country ${normaliseCountry(route.countryRegionCode)}, postcode ${route.postcode}) `
    + `routes by ${method} but has ${missing}, so freight cannot be quoted until the row names ${noAgent && noService ? 'them' : 'it'}.`;
}

/**
 * Decimal texts already read: every quote compares the same band bounds, prices and unit weights
 * (decimals are immutable, so sharing one is safe). Bounded; cleared when full.
 */
const decimals = new Map<string, Dec>();
const MAX_DECIMALS_KEPT = 10_000;

function decimalOf(text: string): Dec {
  let value = decimals.get(text);
  if (value === undefined) {
    value = new Dec(text);
    if (decimals.size >= MAX_DECIMALS_KEPT) decimals.clear();
    decimals.set(text, value);
  }
  return value;
}

/** Σ unit weight × quantity; a product with no weight weighs nothing. */
function consignmentWeight(items: readonly ConsignmentItem[]): Dec {
  let total = new Dec(0);
  for (const item of items) {
    if (item.weight !== null && item.quantity > 0) total = total.plus(decimalOf(item.weight).times(item.quantity));
  }
  return total;
}

/** Both bounds inclusive, like price rules; a missing bound is open. `t`: the instant, ms since the epoch. */
function inEffect(rate: FreightRate, t: number): boolean {
  if (rate.startDate !== null && t < rate.startDate.getTime()) return false;
  if (rate.endDate !== null && t > rate.endDate.getTime()) return false;
  return true;
}

/** A band includes its lower bound and excludes its upper bound; a missing bound is open. */
function inBand(amount: Dec, min: string | null, max: string | null): boolean {
  if (min !== null && amount.lessThan(decimalOf(min))) return false;
  if (max !== null && amount.greaterThanOrEqualTo(decimalOf(max))) return false;
  return true;
}

const holdsWeight = (rate: FreightRate, weight: Dec): boolean => inBand(weight, rate.minWeight, rate.maxWeight);
const holdsValue = (rate: FreightRate, value: Dec): boolean => inBand(value, rate.minInvoiceValue, rate.maxInvoiceValue);

/** A rate with no price matches nothing: charging 0 for it could ship for free by mistake. */
function cheapestRate(rates: readonly FreightRate[], weight: Dec, value: Dec): FreightRate | undefined {
  let best: { rate: FreightRate; price: Dec } | undefined;
  for (const rate of rates) {
    if (rate.price === null || !holdsWeight(rate, weight) || !holdsValue(rate, value)) continue;
    const price = decimalOf(rate.price);
    if (best === undefined || (price.comparedTo(best.price) || byId(rate, best.rate)) < 0) best = { rate, price };
  }
  return best?.rate;
}

interface Service { country: string; agentCode: string; serviceCode: string }

/** Why no rate charges the consignment, naming what the integrator would have to change. */
function noRateReason(rates: readonly FreightRate[], s: Service, weight: Dec, value: Dec, at: Date): string {
  const of = `of country ${s.country} for agent ${s.agentCode}, service ${s.serviceCode}`;
  const w = `weight ${fixed(weight)}`;
  const v = `value ${fixed(value)}`;
  if (rates.length === 0) return `No freight rate ${of} is in effect at ${at.toISOString()}, so the consignment (${w}, ${v}) cannot be shipped.`;
  const unpriced = rates.filter((rate) => holdsWeight(rate, weight) && holdsValue(rate, value)).sort(byId);
  if (unpriced.length > 0) {
    const ids = unpriced.map((rate) => rate.id).join(', ');
    return unpriced.length === 1
      ? `Freight rate ${ids} ${of} holds the consignment (${w}, ${v}) but has no price, so the consignment cannot be shipped.`
      : `Freight rates ${ids} ${of} hold the consignment (${w}, ${v}) but have no price, so the consignment cannot be shipped.`;
  }
  const weightHeld = rates.some((rate) => holdsWeight(rate, weight));
  const valueHeld = rates.some((rate) => holdsValue(rate, value));
  // A gap between bands and a weight above the last band read the same to an integrator: no band holds it.
  const bands = 'a band includes its lower bound and excludes its upper bound';
  if (!weightHeld && !valueHeld) {
    return `The consignment ${w} is in no weight band and its ${v} in no value band of the freight rates ${of} (${bands}), so it cannot be shipped.`;
  }
  if (!weightHeld) return `The consignment ${w} is in no weight band of the freight rates ${of} (${bands}), so the consignment (${v}) cannot be shipped.`;
  if (!valueHeld) return `The consignment ${v} is in no value band of the freight rates ${of} (${bands}), so the consignment (${w}) cannot be shipped.`;
  return `No freight rate ${of} holds both the consignment ${w} and its ${v}: the rates whose weight band holds the weight have value bands that do not hold the value, so the consignment cannot be shipped.`;
}

/*
 * Per-package charging: a bin packing, exact in integers and arithmetic in quantities.
 *
 * Measures are scaled to integers (bigint) by the largest number of decimal places among them, so
 * every comparison and sum is exact. A package holds units when each unit fits its inner dimensions
 * in some orientation (the sorted dimensions of unit and package, compared pairwise), the units'
 * volumes add up to at most its volume and their weights to at most its maximum weight. A missing
 * package measure is no limit on it; a missing unit measure is 0.
 *
 * The heuristic aims at the fewest packages, then the lowest cost:
 * 1. Lines in decreasing order of unit volume, then unit weight (first-fit decreasing).
 * 2. A line's units go first into the packages already open, in the order they were opened, each
 *    taking as many as its remaining room holds (first fit).
 * 3. The rest open new packages of the type that holds the most of these units (ties: the cheaper,
 *    then the lower id): full ones, then one with the remainder.
 * 4. Each package is then downsized to the cheapest type (ties: the lower id) that holds exactly
 *    its contents, so a half-empty last carton becomes the satchel its contents fit.
 * Identical packages are kept as one group with a count, and a line fills a group in one division,
 * so 2,000,000,000 units cost a few bigint operations, not 2,000,000,000 objects. A line splits at
 * most one group and opens at most two, so there are at most 4 groups per line.
 */

/** A measure as a scaled integer; null is no limit (package) where it appears. */
type Limit = bigint | null;

interface Box {
  /** Sorted ascending, unlimited (null) last. */
  dims: [Limit, Limit, Limit];
  volume: Limit;
  weight: Limit;
}

interface Unit {
  item: ConsignmentItem;
  index: number;
  quantity: bigint;
  dims: [bigint, bigint, bigint];
  volume: bigint;
  weight: bigint;
  /** By package type index: whether one unit fits an empty package of that type. */
  fits: boolean[];
}

interface Group {
  type: number;
  count: bigint;
  /** Per package of the group. */
  usedVolume: bigint;
  usedWeight: bigint;
  /** By package type index: whether every unit in each package of the group fits that type. */
  fits: boolean[];
}

type Packed = { packages: PackageCharge[] } | { unpackable: Unit[]; boxes: Box[] };

/** A destination's package types that charge (a freightCost), by id, and their measures as one key. */
interface CountryPackageTypes {
  readonly types: readonly PackageType[];
  /** Everything of the types packing reads. */
  readonly key: string;
}

/** Per data set (one object per destination, kept by the reference cache) and country. */
const packageTypesByData = new WeakMap<FreightData, Map<string, CountryPackageTypes>>();

function packageTypesOf(data: FreightData, country: string): CountryPackageTypes {
  let byCountry = packageTypesByData.get(data);
  if (byCountry === undefined) {
    byCountry = new Map();
    packageTypesByData.set(data, byCountry);
  }
  let found = byCountry.get(country);
  if (found === undefined) {
    const types = data.packageTypes
      .filter((type) => type.freightCost !== null && normaliseCountry(type.countryRegionCode) === country)
      .sort(byId);
    const key = JSON.stringify(types.map((t) => [t.id, t.description, t.length, t.width, t.height, t.weight, t.freightCost]));
    found = { types, key };
    byCountry.set(country, found);
  }
  return found;
}

/**
 * Packings already worked out, by package types and items (`packingKey`): a buyer quotes the same
 * basket again and again, and the packing is the costliest part of its freight. A packing depends on
 * nothing else (not the instant, nor the value), and its answer is never changed once made.
 */
const packings = new LRUCache<string, Packed>({ max: 10_000 });

/** Everything of the items packing reads, in order. */
function packingKey(items: readonly ConsignmentItem[], types: CountryPackageTypes): string {
  let key = types.key;
  for (const i of items) key += `\u0000${i.sku}\u0001${i.quantity}\u0001${i.weight}\u0001${i.length}\u0001${i.width}\u0001${i.height}`;
  return key;
}

/** `packConsignment`, kept. */
function packedConsignment(items: readonly ConsignmentItem[], types: CountryPackageTypes): Packed {
  const key = packingKey(items, types);
  let packed = packings.get(key);
  if (packed === undefined) {
    packed = packConsignment(items, types.types);
    packings.set(key, packed);
  }
  return packed;
}

function packConsignment(items: readonly ConsignmentItem[], types: readonly PackageType[]): Packed {
  const lengthScale = scaleOf(items.flatMap((i) => [i.length, i.width, i.height]).concat(types.flatMap((p) => [p.length, p.width, p.height])));
  const weightScale = scaleOf(items.map((i) => i.weight).concat(types.map((p) => p.weight)));
  const boxes = types.map((type) => boxOf(type, lengthScale, weightScale));
  const costs = types.map((type) => new Dec(type.freightCost as string));

  const units: Unit[] = [];
  items.forEach((item, index) => {
    if (!Number.isSafeInteger(item.quantity)) throw new TypeError(`quantity of ${item.sku} must be an integer, not ${item.quantity}`);
    if (item.quantity <= 0) return; // ships nothing
    const dims = sortedDims([item.length, item.width, item.height].map((d) => scaled(d, lengthScale) ?? 0n)) as [bigint, bigint, bigint];
    const weight = scaled(item.weight, weightScale) ?? 0n;
    const unit = { item, index, quantity: BigInt(item.quantity), dims, volume: dims[0] * dims[1] * dims[2], weight, fits: [] as boolean[] };
    unit.fits = boxes.map((box) => fitsBox(unit, box));
    units.push(unit);
  });
  const unpackable = units.filter((unit) => !unit.fits.includes(true));
  if (unpackable.length > 0) return { unpackable, boxes };

  units.sort((a, b) => compareBig(b.volume, a.volume) || compareBig(b.weight, a.weight) || a.index - b.index);
  const groups: Group[] = [];
  for (const unit of units) {
    const rest = fillOpen(groups, unit, boxes);
    if (rest > 0n) groups.push(...openNew(unit, rest, boxes, costs, types));
  }

  const counts = new Map<number, bigint>();
  for (const group of groups) {
    const type = cheapestHolding(group, boxes, costs, types);
    counts.set(type, (counts.get(type) ?? 0n) + group.count);
  }
  const packages = [...counts].sort(([a], [b]) => byId(types[a] as PackageType, types[b] as PackageType)).map(([index, count]) => {
    const type = types[index] as PackageType;
    const cost = costs[index] as Dec;
    return {
      packageTypeId: type.id, description: type.description, count: Number(count),
      freightCost: fixed(cost), amount: fixed(cost.times(count.toString())),
    };
  });
  return { packages };
}

/** The most decimal places among the measures, so that scaling by it makes each an exact integer. */
function scaleOf(values: ReadonlyArray<string | null>): number {
  let scale = 0;
  for (const value of values) {
    if (value === null) continue;
    // Trailing zeros add no precision ("12.3400" needs 2 places).
    const { units, places } = unitsOf(value);
    let needed = places;
    for (let u = units; needed > 0 && u % 10n === 0n; u /= 10n) needed -= 1;
    scale = Math.max(scale, needed);
  }
  return scale;
}

function scaled(value: string | null, scale: number): bigint | null {
  return value === null ? null : toUnits(value, scale);
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ascending, with null (no limit) after every number. */
function sortedDims<T extends Limit>(dims: T[]): T[] {
  return [...dims].sort((a, b) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : compareBig(a, b)));
}

function boxOf(type: PackageType, lengthScale: number, weightScale: number): Box {
  const raw = [type.length, type.width, type.height].map((d) => scaled(d, lengthScale));
  const dims = sortedDims(raw) as [Limit, Limit, Limit];
  const volume = raw.includes(null) ? null : (raw as bigint[]).reduce((a, b) => a * b, 1n);
  return { dims, volume, weight: scaled(type.weight, weightScale) };
}

function fitsBox(unit: Pick<Unit, 'dims' | 'weight'>, box: Box): boolean {
  for (let i = 0; i < 3; i += 1) {
    const room = box.dims[i] as Limit;
    if (room !== null && (unit.dims[i] as bigint) > room) return false;
  }
  return box.weight === null || unit.weight <= box.weight;
}

/** How many more of `unit` fit in room of this volume and weight; null when there is no limit. */
function unitsFitting(unit: Unit, volume: Limit, weight: Limit): Limit {
  const byVolume = volume === null || unit.volume === 0n ? null : volume / unit.volume;
  const byWeight = weight === null || unit.weight === 0n ? null : weight / unit.weight;
  if (byVolume === null) return byWeight;
  if (byWeight === null) return byVolume;
  return byVolume < byWeight ? byVolume : byWeight;
}

const roomLeft = (limit: Limit, used: bigint): Limit => (limit === null ? null : limit - used);

/** `group` with `n` more units of `unit` in each of its `count` packages. */
function withUnits(group: Group, count: bigint, unit: Unit, n: bigint): Group {
  return {
    type: group.type, count, usedVolume: group.usedVolume + n * unit.volume, usedWeight: group.usedWeight + n * unit.weight,
    fits: group.fits.map((fit, k) => fit && (unit.fits[k] as boolean)),
  };
}

/** First fit into the open packages, group by group; returns the units left over. */
function fillOpen(groups: Group[], unit: Unit, boxes: readonly Box[]): bigint {
  let rest = unit.quantity;
  for (let i = 0; i < groups.length && rest > 0n; i += 1) {
    const group = groups[i] as Group;
    if (!unit.fits[group.type]) continue;
    const box = boxes[group.type] as Box;
    const each = unitsFitting(unit, roomLeft(box.volume, group.usedVolume), roomLeft(box.weight, group.usedWeight));
    if (each === 0n) continue;
    const parts: Group[] = [];
    let untouched = group.count;
    if (each !== null) {
      const full = rest / each < untouched ? rest / each : untouched;
      if (full > 0n) parts.push(withUnits(group, full, unit, each));
      untouched -= full;
      rest -= full * each;
    }
    if (rest > 0n && untouched > 0n) { // the first package not filled takes the remainder
      parts.push(withUnits(group, 1n, unit, rest));
      untouched -= 1n;
      rest = 0n;
    }
    if (untouched > 0n) parts.push({ ...group, count: untouched });
    groups.splice(i, 1, ...parts);
    i += parts.length - 1;
  }
  return rest;
}

/** New packages for `quantity` units: of the type that holds the most of them, full ones then the remainder. */
function openNew(unit: Unit, quantity: bigint, boxes: readonly Box[], costs: readonly Dec[], types: readonly PackageType[]): Group[] {
  let best: { type: number; each: Limit } | undefined;
  boxes.forEach((box, type) => {
    if (!unit.fits[type]) return;
    const each = unitsFitting(unit, box.volume, box.weight);
    if (best === undefined) {
      best = { type, each };
      return;
    }
    const bigger = compareLimits(each, best.each)
      || (costs[best.type] as Dec).comparedTo(costs[type] as Dec)
      || byId(types[best.type] as PackageType, types[type] as PackageType);
    if (bigger > 0) best = { type, each };
  });
  if (best === undefined) throw new Error(`unit ${unit.item.sku} fits no package type`); // filtered out before packing
  const empty: Group = { type: best.type, count: 0n, usedVolume: 0n, usedWeight: 0n, fits: boxes.map(() => true) };
  if (best.each === null) return [withUnits(empty, 1n, unit, quantity)];
  const groups: Group[] = [];
  const full = quantity / best.each;
  const remainder = quantity % best.each;
  if (full > 0n) groups.push(withUnits(empty, full, unit, best.each));
  if (remainder > 0n) groups.push(withUnits(empty, 1n, unit, remainder));
  return groups;
}

/** Negative when a holds fewer than b; no limit holds the most. */
function compareLimits(a: Limit, b: Limit): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  return compareBig(a, b);
}

/** The cheapest type that holds a package's contents exactly as packed (ties: the lower id); its own type always does. */
function cheapestHolding(group: Group, boxes: readonly Box[], costs: readonly Dec[], types: readonly PackageType[]): number {
  let best = group.type;
  boxes.forEach((box, type) => {
    if (!group.fits[type]) return;
    if (box.volume !== null && group.usedVolume > box.volume) return;
    if (box.weight !== null && group.usedWeight > box.weight) return;
    const cheaper = (costs[type] as Dec).comparedTo(costs[best] as Dec) || byId(types[type] as PackageType, types[best] as PackageType);
    if (cheaper < 0) best = type;
  });
  return best;
}

const UNPACKABLE_NAMED = 5;

/** Names each item that fits no package and whether it is too large or too heavy. */
function unpackableReason(units: readonly Unit[], boxes: readonly Box[], country: string): string {
  const sentences = units.slice(0, UNPACKABLE_NAMED).map((unit) => {
    const { item } = unit;
    const size = [item.length, item.width, item.height].map((d) => (d === null ? '0' : new Dec(d).toFixed())).join(' × ');
    const largeEnough = boxes.some((box) => fitsBox({ dims: unit.dims, weight: 0n }, box));
    return largeEnough
      ? `Item ${item.sku} weighs ${new Dec(item.weight ?? 0).toFixed()} a unit, more than any package type of country ${country} large enough for it carries.`
      : `Item ${item.sku} (${size}) is larger than every package type of country ${country} in any orientation.`;
  });
  const more = units.length - UNPACKABLE_NAMED;
  if (more > 0) sentences.push(`${more} more item${more === 1 ? '' : 's'} fit no package type either.`);
  return `${sentences.join(' ')} The consignment cannot be shipped per package.`;
}
