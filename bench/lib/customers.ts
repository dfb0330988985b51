import {
  PAYMENT_TERMS, PRICE_MODES, type AccountItem, type CustomerItem, type ShipToItem,
} from '../../src/modules/customers/customers.schemas.js';
import { seededRandom } from './catalogue.js';

/**
 * Generated customer accounts for the customer ingest benchmark: deterministic (seeded), with an
 * Australian-looking value in every account and ship-to field, so the payload is as wide as an ERP
 * can make it. No `admin`: provisioning would queue jobs and measure them too. Every value stays
 * within the schema's lengths; the scenario still validates the items before timing.
 */

/** [locality, state, postcode]: real Australian places, so addresses read as such. */
const LOCALITIES: ReadonlyArray<readonly [string, string, string]> = [
  ['Sydney', 'NSW', '2000'], ['Parramatta', 'NSW', '2150'], ['Chatswood', 'NSW', '2067'], ['Penrith', 'NSW', '2750'],
  ['Alexandria', 'NSW', '2015'], ['Newcastle', 'NSW', '2300'], ['Wollongong', 'NSW', '2500'], ['Albury', 'NSW', '2640'],
  ['Wagga Wagga', 'NSW', '2650'], ['Dubbo', 'NSW', '2830'], ['Port Macquarie', 'NSW', '2444'], ['Coffs Harbour', 'NSW', '2450'],
  ['Melbourne', 'VIC', '3000'], ['Richmond', 'VIC', '3121'], ['Dandenong', 'VIC', '3175'], ['Port Melbourne', 'VIC', '3207'],
  ['Geelong', 'VIC', '3220'], ['Ballarat', 'VIC', '3350'], ['Bendigo', 'VIC', '3550'], ['Shepparton', 'VIC', '3630'],
  ['Brisbane', 'QLD', '4000'], ['Fortitude Valley', 'QLD', '4006'], ['Southport', 'QLD', '4215'], ['Toowoomba', 'QLD', '4350'],
  ['Maroochydore', 'QLD', '4558'], ['Rockhampton', 'QLD', '4700'], ['Mackay', 'QLD', '4740'], ['Townsville', 'QLD', '4810'],
  ['Cairns', 'QLD', '4870'], ['Perth', 'WA', '6000'], ['Joondalup', 'WA', '6027'], ['Fremantle', 'WA', '6160'],
  ['Bunbury', 'WA', '6230'], ['Kalgoorlie', 'WA', '6430'], ['Adelaide', 'SA', '5000'], ['Glenelg', 'SA', '5045'],
  ['Mount Gambier', 'SA', '5290'], ['Hobart', 'TAS', '7000'], ['Launceston', 'TAS', '7250'], ['Devonport', 'TAS', '7310'],
  ['Darwin', 'NT', '0800'], ['Katherine', 'NT', '0850'], ['Alice Springs', 'NT', '0870'], ['Canberra', 'ACT', '2600'],
  ['Fyshwick', 'ACT', '2609'],
];

const AREA_CODES: Readonly<Record<string, string>> = { NSW: '02', ACT: '02', VIC: '03', TAS: '03', QLD: '07', SA: '08', WA: '08', NT: '08' };

const STREETS = [
  'George Street', 'Pitt Street', 'Collins Street', 'Bourke Street', 'Queen Street', 'Adelaide Street', 'Hay Street',
  'Murray Street', 'King William Street', 'Elizabeth Street', 'Macquarie Street', 'Smith Street', 'Chapel Street',
  'Sturt Street', 'Flinders Street', 'Hunter Street', 'Church Street', 'Victoria Road', 'Parramatta Road',
  'Pacific Highway', 'Great Eastern Highway', 'Brunswick Street', 'Stirling Highway', 'High Street', 'Station Street',
  'Railway Parade', 'Industrial Drive', 'Enterprise Way', 'Commercial Road', 'Gympie Road', 'Logan Road', 'Botany Road',
];
const UNITS = ['Unit', 'Suite', 'Level', 'Shop', 'Warehouse', 'Building'];

const SURNAMES = [
  'Smith', 'Jones', 'Williams', 'Brown', 'Wilson', 'Taylor', 'Nguyen', 'Johnson', 'Martin', 'White', 'Anderson',
  'Walker', 'Thompson', 'Thomas', 'Lee', 'Ryan', 'Kelly', 'King', 'Harris', 'Robinson', 'Campbell', 'Clarke',
  'Mitchell', 'Young', 'Scott', 'Murphy', "O'Brien", 'Chen', 'Patel', 'Singh', 'Papadopoulos', 'Rossi', 'Kowalski',
  'Tran', 'Wang', 'Cooper', 'Stewart', 'Morris', 'Hughes', "O'Connor", 'McDonald', 'Fitzgerald',
];
const TRADES = [
  'Workwear', 'Uniforms', 'Sports', 'Outdoor', 'Apparel', 'Fitness', 'Surf', 'Schoolwear', 'Activewear', 'Clothing',
  'Safety Supplies', 'Teamwear', 'Corporate Wear', 'Adventure',
];
const FORMS = ['Pty Ltd', 'Pty Ltd', 'Pty Ltd', 'Pty Ltd', '& Co', 'Group Pty Ltd', 'Holdings Pty Ltd', 'Trading Trust'];
const PRICE_GROUPS = ['RETAIL', 'TRADE', 'WHOLESALE', 'KEYACCOUNT', 'SCHOOLS', 'GOVT'];
const DISC_GROUPS = ['DISC-A', 'DISC-B', 'DISC-C', 'DISC-D', 'DISC-E'];
/** LUMA is the catalogue's brand; the others stand for brands a wholesaler might carry. */
const OTHER_BRANDS = ['ACME', 'KOALA', 'BONDI', 'SOUTHERLY', 'OUTBACK', 'WATTLE'];
const CREDIT_LIMITS = [2_000, 5_000, 10_000, 15_000, 25_000, 50_000, 75_000, 100_000, 250_000];

/** Mean 3 ship-tos per account: 1 to 5, uniformly. */
const MAX_SHIP_TOS = 5;

export function generateCustomers(count: number, seed = 20_251_201): CustomerItem[] {
  const random = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const chance = (p: number) => random() < p;
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  // Decimals as an ERP sends them: strings with 0 to 4 places.
  const decimal = (value: number) => value.toFixed(Math.floor(random() * 5));
  const shuffled = <T>(values: readonly T[]): T[] => {
    const copy = [...values];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  };
  const place = () => {
    const [city, state, postCode] = pick(LOCALITIES);
    const phone = `(${AREA_CODES[state] ?? '02'}) ${digits(4)} ${digits(4)}`;
    return {
      address1: `${1 + Math.floor(random() * 400)} ${pick(STREETS)}`,
      address2: `${pick(UNITS)} ${1 + Math.floor(random() * 40)}`,
      city, state, postCode, phone,
      taxAreaCode: `AU-${state}`,
    };
  };

  const out: CustomerItem[] = [];
  const width = Math.max(6, String(count).length);
  for (let i = 0; i < count; i += 1) {
    const accountNo = `C${String(i + 1).padStart(width, '0')}`;
    const surname = pick(SURNAMES);
    const trade = pick(TRADES);
    const tradingName = `${surname} ${trade}`;
    const name = `${tradingName} ${pick(FORMS)}`;
    const domain = `${tradingName.toLowerCase().replace(/[^a-z]/g, '')}.com.au`;
    const head = place();
    const taxLiable = !chance(0.03);

    const shipToCount = 1 + Math.floor(random() * MAX_SHIP_TOS);
    const shipToAddresses: ShipToItem[] = [];
    for (let s = 0; s < shipToCount; s += 1) {
      // The first ship-to is the head office itself; the others are branches elsewhere.
      const site = s === 0 ? head : place();
      shipToAddresses.push({
        shipToCode: s === 0 ? 'MAIN' : `BRANCH-${String(s + 1).padStart(2, '0')}`,
        shipToName: `${tradingName} ${site.city}`,
        shipToAddress1: site.address1,
        shipToAddress2: site.address2,
        shipToPostCode: site.postCode,
        shipToCity: site.city,
        shipToState: site.state,
        shipToCountryRegionCode: 'AU',
        taxLiable,
        taxAreaCode: site.taxAreaCode,
        isFirstNations: chance(0.03),
      });
    }

    const creditLimit = pick(CREDIT_LIMITS);
    // A few accounts are in credit (a negative balance), as after a large return.
    const creditBalance = chance(0.05) ? -(1 + random() * 2_000) : random() * creditLimit * 1.05;
    const others = shuffled(OTHER_BRANDS);
    const allowedCount = Math.floor(random() * 4);
    const allowed = ['LUMA', ...others.slice(0, allowedCount)];
    const indent = others.slice(allowedCount, allowedCount + 1 + Math.floor(random() * 2));
    const account: AccountItem = {
      accountNo,
      name,
      status: chance(0.92) ? 'Active' : 'OnHold',
      paymentTermsCode: pick(PAYMENT_TERMS),
      billToAddress1: head.address1,
      billToAddress2: head.address2,
      billToPostCode: head.postCode,
      billToCity: head.city,
      billToState: head.state,
      billToCountryRegionCode: 'AU',
      billToCountryRegionName: 'Australia',
      phoneNo: head.phone,
      email: `accounts@${domain}`,
      defaultShipToCode: chance(0.8) ? 'MAIN' : pick(shipToAddresses).shipToCode,
      primaryContactNo: `CT${accountNo.slice(1)}`,
      creditLimit: decimal(creditLimit),
      creditBalance: decimal(creditBalance),
      priceMode: chance(0.85) ? 'Standard' : pick(PRICE_MODES),
      priceGroup: pick(PRICE_GROUPS),
      discGroup: pick(DISC_GROUPS),
      allowedBrands: allowed.join(','),
      indentBrands: indent.join(','),
      taxLiable,
      taxAreaCode: head.taxAreaCode,
      gstBusinessPostingGroup: taxLiable ? 'DOMESTIC' : 'GST-FREE',
    };
    out.push({ account, shipToAddresses });
  }
  return out;
}
