import type { BrandItem, CategoryItem, MediaItem, ProductItem } from '../modules/catalogue/index.js';
import type { CustomerItem } from '../modules/customers/index.js';
import type { FreightRateItem, PackageTypeItem, PostcodeRouteItem } from '../modules/freight/index.js';
import type { InventoryItem } from '../modules/inventory/index.js';
import type { LedgerEntryItem } from '../modules/ledger/index.js';
import { gs1CheckDigit } from '../modules/lookup/index.js';
import type { PriceRuleItem } from '../modules/pricing/index.js';
import type { AreaItem, GstPostingRatesItem, JurisdictionItem } from '../modules/tax/index.js';
import { seededRandom } from '../platform/seeded-random.js';
import { demoPicturePath, type DemoGarment } from '../portal/demo-pictures.js';

/**
 * The demo world `portway demo` loads: a small apparel wholesaler's catalogue (about 40 styles in
 * colours and sizes, a few hundred variants) under a three-level category tree and four brands,
 * stock at two warehouses, price rules, freight and tax for the demo customer's ship-tos, and that
 * customer with a buyer, and pictures of every colourway that the service draws itself.
 * Everything is generated here from fixed lists and a seeded generator, so
 * every run sends the same items (only the dates of receipts and ledger entries follow the day the
 * command runs, so they stay in the future or in the past as meant).
 */

export const DEMO_ACCOUNT_NO = 'DEMO-001';
export const DEMO_BUYER = { name: 'Demo Buyer', email: 'buyer@demo.portway.test' } as const;
export const DEMO_LOCATIONS = ['SYD-DC', 'MEL-DC'] as const;

export interface DemoWorld {
  readonly brands: readonly BrandItem[];
  readonly categories: readonly CategoryItem[];
  readonly products: readonly ProductItem[];
  /** Pictures drawn by the service itself (`/assets/demo/…`), addressed under PUBLIC_URL. */
  readonly media: readonly MediaItem[];
  readonly inventory: readonly InventoryItem[];
  readonly priceRules: readonly PriceRuleItem[];
  readonly routes: readonly PostcodeRouteItem[];
  readonly rates: readonly FreightRateItem[];
  readonly packageTypes: readonly PackageTypeItem[];
  readonly jurisdictions: readonly JurisdictionItem[];
  readonly areas: readonly AreaItem[];
  readonly gstRates: readonly GstPostingRatesItem[];
  readonly customers: readonly CustomerItem[];
  readonly ledger: readonly LedgerEntryItem[];
}


/** PORTWAY and HARBOUR are open to all; SUMMIT is restricted and the demo customer has it as an indent brand; VAULT is restricted and hidden from it. */
export const DEMO_BRANDS: readonly BrandItem[] = [
  { code: 'PORTWAY', name: 'Portway Basics', restricted: false },
  { code: 'HARBOUR', name: 'Harbour & Co', restricted: false },
  { code: 'SUMMIT', name: 'Summit Workwear', restricted: true },
  { code: 'VAULT', name: 'Vault Label', restricted: true },
];

const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  WOMEN: 'Women', MEN: 'Men', WORK: 'Workwear', ACC: 'Accessories',
  TOPS: 'Tops', BOTTOMS: 'Bottoms', OUTER: 'Outerwear', HIVIS: 'Hi-Vis', HEAD: 'Headwear', SOCKS: 'Socks',
  TEES: 'Tees', TANKS: 'Tanks', HOODIES: 'Hoodies & Sweatshirts', JACKETS: 'Jackets', PANTS: 'Pants', SHORTS: 'Shorts',
  SHIRTS: 'Shirts', CAPS: 'Caps', BEANIES: 'Beanies',
};

/** A unit's weight (kg), folded size (cm), fabric, care and discount group by garment. */
const GARMENTS = {
  TEE: { weight: 0.2, dims: [30, 25, 2], fabric: '100% combed cotton, 180 gsm', care: 'Machine wash cold, line dry', group: 'BASICS', price: 19 },
  TANK: { weight: 0.15, dims: [28, 22, 1.5], fabric: '95% cotton, 5% elastane', care: 'Machine wash cold, line dry', group: 'BASICS', price: 17 },
  HOODIE: { weight: 0.7, dims: [35, 30, 6], fabric: '80% cotton, 20% polyester fleece, 320 gsm', care: 'Machine wash warm inside out', group: 'OUTERWEAR', price: 49 },
  JACKET: { weight: 0.9, dims: [40, 32, 7], fabric: 'Recycled nylon shell, polyester lining', care: 'Machine wash cold, do not tumble dry', group: 'OUTERWEAR', price: 89 },
  PANTS: { weight: 0.5, dims: [35, 30, 4], fabric: '98% cotton twill, 2% elastane', care: 'Machine wash warm', group: 'BOTTOMS', price: 45 },
  SHORTS: { weight: 0.3, dims: [28, 25, 3], fabric: 'Quick-dry polyester', care: 'Machine wash cold', group: 'BOTTOMS', price: 29 },
  HIVIS: { weight: 0.45, dims: [35, 30, 4], fabric: '175 gsm polyester birdseye, 3M reflective tape', care: 'Wash warm, do not bleach', group: 'WORK', price: 39 },
  CAP: { weight: 0.1, dims: [25, 18, 12], fabric: 'Cotton drill', care: 'Spot clean', group: 'ACCESSORIES', price: 15 },
  SOCKS: { weight: 0.08, dims: [20, 10, 3], fabric: '75% merino wool, 25% nylon', care: 'Machine wash warm', group: 'ACCESSORIES', price: 12 },
} as const;
type Garment = keyof typeof GARMENTS;

const APPAREL_SIZES = ['XS', 'S', 'M', 'L', 'XL', '2XL'] as const;
const WAIST_SIZES = ['28', '30', '32', '34', '36', '38'] as const;
const SOCK_SIZES = ['S/M', 'L/XL'] as const;

/** The styles: prefix of the master number, name, category leaf, garment, gender, colours (code, name). */
interface Style { no: string; name: string; category: string; garment: Garment; gender: string; colours: ReadonlyArray<readonly [string, string]> }

const C = {
  BLK: ['BLK', 'Black'], WHT: ['WHT', 'White'], NAV: ['NAV', 'Navy'], GRY: ['GRY', 'Grey Marle'], OLV: ['OLV', 'Olive'],
  SND: ['SND', 'Sand'], RED: ['RED', 'Brick Red'], BLU: ['BLU', 'Ocean Blue'], PNK: ['PNK', 'Dusty Pink'], CHR: ['CHR', 'Charcoal'],
  YEL: ['YEL', 'Fluoro Yellow'], ORG: ['ORG', 'Fluoro Orange'], STN: ['STN', 'Stone'], KHK: ['KHK', 'Khaki'],
} as const;

/** Each colour as the demo's pictures draw it. */
const COLOUR_HEX: Readonly<Record<string, string>> = {
  Black: '232323', White: 'f7f7f5', Navy: '1d2a44', 'Grey Marle': '9a9b9d', Olive: '5b6236', Sand: 'd8c7a1', 'Brick Red': '9c3b2e',
  'Ocean Blue': '2f6f9f', 'Dusty Pink': 'd9a5a8', Charcoal: '3c3f44', 'Fluoro Yellow': 'e3f03a', 'Fluoro Orange': 'ff7a1a',
  Stone: 'bfb6a3', Khaki: '8a7f55',
};

/** The silhouette each garment is drawn as. */
const PICTURED: Readonly<Record<Garment, DemoGarment>> = {
  TEE: 'tee', TANK: 'tank', HOODIE: 'hoodie', JACKET: 'jacket', PANTS: 'pants', SHORTS: 'shorts', HIVIS: 'hivis', CAP: 'cap', SOCKS: 'socks',
};

const STYLES: readonly Style[] = [
  { no: 'WT01', name: 'Essential Crew Tee', category: 'WOMEN-TOPS-TEES', garment: 'TEE', gender: 'Women', colours: [C.BLK, C.WHT, C.PNK] },
  { no: 'WT02', name: 'Relaxed Boxy Tee', category: 'WOMEN-TOPS-TEES', garment: 'TEE', gender: 'Women', colours: [C.SND, C.OLV] },
  { no: 'WT03', name: 'Organic V-Neck Tee', category: 'WOMEN-TOPS-TEES', garment: 'TEE', gender: 'Women', colours: [C.WHT, C.NAV, C.GRY] },
  { no: 'WT04', name: 'Ribbed Scoop Tank', category: 'WOMEN-TOPS-TANKS', garment: 'TANK', gender: 'Women', colours: [C.BLK, C.WHT] },
  { no: 'WT05', name: 'Racerback Training Tank', category: 'WOMEN-TOPS-TANKS', garment: 'TANK', gender: 'Women', colours: [C.BLU, C.PNK, C.CHR] },
  { no: 'WH01', name: 'Cloud Fleece Hoodie', category: 'WOMEN-OUTER-HOODIES', garment: 'HOODIE', gender: 'Women', colours: [C.GRY, C.PNK, C.NAV] },
  { no: 'WH02', name: 'Cropped Crew Sweat', category: 'WOMEN-OUTER-HOODIES', garment: 'HOODIE', gender: 'Women', colours: [C.SND, C.BLK] },
  { no: 'WJ01', name: 'Harbour Rain Jacket', category: 'WOMEN-OUTER-JACKETS', garment: 'JACKET', gender: 'Women', colours: [C.NAV, C.OLV] },
  { no: 'WJ02', name: 'Packable Puffer Jacket', category: 'WOMEN-OUTER-JACKETS', garment: 'JACKET', gender: 'Women', colours: [C.BLK, C.RED] },
  { no: 'WP01', name: 'Wide Leg Chino', category: 'WOMEN-BOTTOMS-PANTS', garment: 'PANTS', gender: 'Women', colours: [C.STN, C.BLK] },
  { no: 'WP02', name: 'High Rise Jogger', category: 'WOMEN-BOTTOMS-PANTS', garment: 'PANTS', gender: 'Women', colours: [C.GRY, C.OLV] },
  { no: 'WS01', name: 'Linen Blend Short', category: 'WOMEN-BOTTOMS-SHORTS', garment: 'SHORTS', gender: 'Women', colours: [C.SND, C.WHT] },
  { no: 'WS02', name: 'Run Club Short', category: 'WOMEN-BOTTOMS-SHORTS', garment: 'SHORTS', gender: 'Women', colours: [C.BLK, C.BLU] },
  { no: 'MT01', name: 'Heavyweight Pocket Tee', category: 'MEN-TOPS-TEES', garment: 'TEE', gender: 'Men', colours: [C.BLK, C.WHT, C.NAV] },
  { no: 'MT02', name: 'Everyday Crew Tee', category: 'MEN-TOPS-TEES', garment: 'TEE', gender: 'Men', colours: [C.GRY, C.OLV, C.RED] },
  { no: 'MT03', name: 'Slub Henley Tee', category: 'MEN-TOPS-TEES', garment: 'TEE', gender: 'Men', colours: [C.SND, C.CHR] },
  { no: 'MT04', name: 'Muscle Tank', category: 'MEN-TOPS-TANKS', garment: 'TANK', gender: 'Men', colours: [C.BLK, C.WHT] },
  { no: 'MT05', name: 'Oxford Button Down Shirt', category: 'MEN-TOPS-SHIRTS', garment: 'TEE', gender: 'Men', colours: [C.BLU, C.WHT] },
  { no: 'MT06', name: 'Flannel Check Shirt', category: 'MEN-TOPS-SHIRTS', garment: 'TEE', gender: 'Men', colours: [C.RED, C.NAV] },
  { no: 'MH01', name: 'Harbour Pullover Hoodie', category: 'MEN-OUTER-HOODIES', garment: 'HOODIE', gender: 'Men', colours: [C.BLK, C.GRY, C.NAV] },
  { no: 'MH02', name: 'Zip Through Hoodie', category: 'MEN-OUTER-HOODIES', garment: 'HOODIE', gender: 'Men', colours: [C.CHR, C.OLV] },
  { no: 'MJ01', name: 'Waxed Cotton Jacket', category: 'MEN-OUTER-JACKETS', garment: 'JACKET', gender: 'Men', colours: [C.OLV, C.BLK] },
  { no: 'MJ02', name: 'Softshell Trail Jacket', category: 'MEN-OUTER-JACKETS', garment: 'JACKET', gender: 'Men', colours: [C.NAV, C.CHR, C.RED] },
  { no: 'MJ03', name: 'Quilted Vest', category: 'MEN-OUTER-JACKETS', garment: 'JACKET', gender: 'Men', colours: [C.BLK, C.KHK] },
  { no: 'MP01', name: 'Slim Stretch Chino', category: 'MEN-BOTTOMS-PANTS', garment: 'PANTS', gender: 'Men', colours: [C.STN, C.NAV, C.BLK] },
  { no: 'MP02', name: 'Cargo Utility Pant', category: 'MEN-BOTTOMS-PANTS', garment: 'PANTS', gender: 'Men', colours: [C.KHK, C.CHR] },
  { no: 'MS01', name: 'Board Short', category: 'MEN-BOTTOMS-SHORTS', garment: 'SHORTS', gender: 'Men', colours: [C.BLU, C.BLK] },
  { no: 'MS02', name: 'Chino Short', category: 'MEN-BOTTOMS-SHORTS', garment: 'SHORTS', gender: 'Men', colours: [C.SND, C.NAV] },
  { no: 'HV01', name: 'Day/Night Hi-Vis Polo', category: 'WORK-HIVIS-SHIRTS', garment: 'HIVIS', gender: 'Unisex', colours: [C.YEL, C.ORG] },
  { no: 'HV02', name: 'Hi-Vis Vented Drill Shirt', category: 'WORK-HIVIS-SHIRTS', garment: 'HIVIS', gender: 'Unisex', colours: [C.YEL, C.ORG] },
  { no: 'HV03', name: 'Hi-Vis Fleece Hoodie', category: 'WORK-HIVIS-HOODIES', garment: 'HOODIE', gender: 'Unisex', colours: [C.YEL, C.ORG] },
  { no: 'HV04', name: 'Hi-Vis Rain Jacket', category: 'WORK-HIVIS-JACKETS', garment: 'JACKET', gender: 'Unisex', colours: [C.YEL, C.ORG] },
  { no: 'WK01', name: 'Heavy Duty Work Pant', category: 'WORK-BOTTOMS-PANTS', garment: 'PANTS', gender: 'Unisex', colours: [C.NAV, C.KHK, C.BLK] },
  { no: 'WK02', name: 'Ripstop Work Short', category: 'WORK-BOTTOMS-SHORTS', garment: 'SHORTS', gender: 'Unisex', colours: [C.NAV, C.KHK] },
  { no: 'AC01', name: 'Six Panel Cap', category: 'ACC-HEAD-CAPS', garment: 'CAP', gender: 'Unisex', colours: [C.BLK, C.NAV, C.STN] },
  { no: 'AC02', name: 'Trucker Mesh Cap', category: 'ACC-HEAD-CAPS', garment: 'CAP', gender: 'Unisex', colours: [C.WHT, C.OLV] },
  { no: 'AC03', name: 'Merino Rib Beanie', category: 'ACC-HEAD-BEANIES', garment: 'CAP', gender: 'Unisex', colours: [C.CHR, C.RED, C.NAV] },
  { no: 'AC04', name: 'Merino Hiking Sock', category: 'ACC-SOCKS', garment: 'SOCKS', gender: 'Unisex', colours: [C.GRY, C.OLV] },
  { no: 'AC05', name: 'Work Crew Sock 3-Pack', category: 'ACC-SOCKS', garment: 'SOCKS', gender: 'Unisex', colours: [C.BLK, C.NAV] },
  { no: 'VL01', name: 'Vault Selvedge Jacket', category: 'MEN-OUTER-JACKETS', garment: 'JACKET', gender: 'Men', colours: [C.NAV, C.BLK] },
  { no: 'VL02', name: 'Vault Silk Blend Tee', category: 'WOMEN-TOPS-TEES', garment: 'TEE', gender: 'Women', colours: [C.WHT, C.SND] },
];

function brandOf(style: Style): string {
  if (style.no.startsWith('VL')) return 'VAULT';
  if (style.category.startsWith('WORK-')) return 'SUMMIT';
  return /[02468]$/.test(style.no) ? 'HARBOUR' : 'PORTWAY';
}

function sizesOf(style: Style): readonly string[] {
  if (style.garment === 'CAP') return ['OSFA'];
  if (style.garment === 'SOCKS') return SOCK_SIZES;
  if (style.garment === 'PANTS') return style.gender === 'Women' ? WAIST_SIZES.slice(0, 5) : WAIST_SIZES;
  return style.gender === 'Women' ? APPAREL_SIZES.slice(0, 5) : APPAREL_SIZES.slice(1);
}

/** EAN-13 in GS1 Australia's 93 range: 930 + the demo's company prefix 9 + a serial. */
function ean13(serial: number): string {
  const body = `9309${String(serial).padStart(8, '0')}`;
  return `${body}${gs1CheckDigit(body)}`;
}

export function demoCategories(): CategoryItem[] {
  const codes = new Set<string>();
  for (const style of STYLES) {
    const parts = style.category.split('-');
    parts.forEach((_, i) => codes.add(parts.slice(0, i + 1).join('-')));
  }
  return [...codes]
    .sort((a, b) => a.split('-').length - b.split('-').length || (a < b ? -1 : 1))
    .map((code) => {
      const parts = code.split('-');
      const last = parts.at(-1) as string;
      return { code, name: CATEGORY_NAMES[last] ?? last, parentCode: parts.length === 1 ? null : parts.slice(0, -1).join('-') };
    });
}

export function demoProducts(): ProductItem[] {
  const random = seededRandom(14_001);
  const products: ProductItem[] = [];
  for (const style of STYLES) {
    const g = GARMENTS[style.garment];
    const master = `PW-${style.no}`;
    const brand = brandOf(style);
    // A style's price varies ±15 % around its garment's, rounded to 5 cents below a whole dollar (…x.95).
    const price = Math.max(5, Math.round(g.price * (0.85 + random() * 0.3))) - 0.05;
    const factor = 0.9 + random() * 0.2;
    const [length, width, height] = g.dims.map((d) => (d * factor).toFixed(1)) as [string, string, string];
    style.colours.forEach(([colourCode, colour], c) => {
      for (const size of sizesOf(style)) {
        const sizeCode = size.replace('/', '');
        products.push({
          sku: `${master}-${colourCode}-${sizeCode}`,
          masterProductNo: master,
          name: `${style.name} ${colour} ${size}`,
          description: style.name,
          unitOfMeasure: 'EA',
          unitPrice: (size === '2XL' || size === '38' ? price + 3 : price).toFixed(2),
          weight: (g.weight * factor).toFixed(3),
          length, width, height,
          category: style.category,
          size,
          color: colour,
          stratificationCode: style.garment,
          isDefaultColor: c === 0,
          gender: style.gender,
          brandCode: brand,
          styleDescription: `${style.name} from ${DEMO_BRANDS.find((b) => b.code === brand)?.name ?? brand}: a wholesale staple that sells through season after season.`,
          fabricComposition: g.fabric,
          styleFeatures: style.garment === 'HIVIS' ? 'Reflective tape, AS/NZS 4602.1 Class D/N' : 'Pre-shrunk; tagless neck label',
          ...(style.garment === 'HIVIS' ? { complianceIcons: 'AS/NZS 4602.1:2011' } : {}),
          sizeFit: style.garment === 'TEE' && style.no === 'WT02' ? 'Relaxed fit' : 'True to size',
          careInstructions: g.care,
          ean: ean13(products.length + 1),
          taxGroupCode: style.category.startsWith('WORK-') ? 'WORKWEAR' : 'GOODS',
          gstProductPostingGroup: 'GST10',
          itemDiscountGroup: g.group,
        });
      }
    });
  }
  return products;
}

/** Where `portway demo` addresses its pictures unless told otherwise: `npm start`'s PUBLIC_URL. */
export const DEMO_PICTURES_URL = 'http://localhost:3000';
/** One style whose pictures are its master product's alone, shown for each colourway, and one with none (the placeholder). */
export const DEMO_STYLE_PICTURED_ONCE = 'PW-AC04';
export const DEMO_STYLE_UNPICTURED = 'PW-AC05';

/**
 * The pictures of every colourway, front and back, in its colour, addressed under `baseUrl` (the
 * service's PUBLIC_URL, which serves them); one style pictured for the master product only, and
 * one not at all, so the demo shows the fallback and the placeholder too.
 */
export function demoMedia(baseUrl: string): MediaItem[] {
  const base = baseUrl.replace(/\/+$/, '');
  return STYLES.flatMap((style): MediaItem[] => {
    const master = `PW-${style.no}`;
    const garment = PICTURED[style.garment];
    if (master === DEMO_STYLE_UNPICTURED) return [];
    if (master === DEMO_STYLE_PICTURED_ONCE) {
      const [, colour] = style.colours[0] as readonly [string, string];
      return [{ masterProductNo: master, images: [{ url: `${base}${demoPicturePath(garment, COLOUR_HEX[colour] as string, 'front')}`, alt: style.name }] }];
    }
    return style.colours.map(([, colour]) => ({
      masterProductNo: master,
      color: colour,
      images: (['front', 'back'] as const).map((view) => ({
        url: `${base}${demoPicturePath(garment, COLOUR_HEX[colour] as string, view)}`,
        alt: `${style.name} in ${colour}, ${view}`,
      })),
    }));
  });
}

const isoDay = (day: Date, offsetDays: number): string => new Date(day.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Stock at both warehouses: most SKUs in stock at one or both, about one in eight out of stock
 * everywhere (half of those with a receipt on the way), and receipts two and five weeks out on
 * about one SKU in five.
 */
export function demoInventory(products: readonly ProductItem[], today: Date): InventoryItem[] {
  const random = seededRandom(14_002);
  return products.map((p) => {
    const r = random();
    const out = r < 0.12;
    const locations = DEMO_LOCATIONS.map((locationCode, i) => {
      const onHand = out ? 0 : Math.floor(random() * (i === 0 ? 120 : 60));
      const reserved = onHand > 10 && random() < 0.3 ? Math.floor(onHand / 5) : 0;
      const incoming = (out && r < 0.06 && i === 0) || (!out && random() < 0.2)
        ? [{ quantity: 24 + Math.floor(random() * 5) * 12, expectedDate: isoDay(today, i === 0 ? 14 : 35) }]
        : [];
      return { locationCode, onHand, reserved, incoming };
    });
    return { sku: p.sku, locations };
  });
}

export const DEMO_PRICE_GROUP = 'TRADE';
export const DEMO_DISCOUNT_GROUP = 'RETAIL-A';

/** A trade price group's discount, a discount group's, a customer price, quantity breaks and an all-customer promotion. */
export function demoPriceRules(products: readonly ProductItem[]): PriceRuleItem[] {
  const listOf = (master: string) => Number(products.find((p) => p.masterProductNo === master)?.unitPrice ?? 0);
  const money = (n: number) => n.toFixed(4);
  return [
    { ruleId: 'DEMO-TRADE-BASICS', sourceType: 'CustomerPriceGroup', sourceCode: DEMO_PRICE_GROUP, itemDiscountGroup: 'BASICS', amountType: 'Discount', lineDiscountPercent: '10' },
    { ruleId: 'DEMO-TRADE-OUTER', sourceType: 'CustomerPriceGroup', sourceCode: DEMO_PRICE_GROUP, itemDiscountGroup: 'OUTERWEAR', amountType: 'Discount', lineDiscountPercent: '7.5' },
    { ruleId: 'DEMO-RETAILA-BOTTOMS', sourceType: 'CustomerDiscountGroup', sourceCode: DEMO_DISCOUNT_GROUP, itemDiscountGroup: 'BOTTOMS', amountType: 'Discount', lineDiscountPercent: '5' },
    { ruleId: 'DEMO-CUST-MH01', sourceType: 'Customer', sourceCode: DEMO_ACCOUNT_NO, masterProductNo: 'PW-MH01', amountType: 'Price', unitPrice: money(listOf('PW-MH01') * 0.8) },
    { ruleId: 'DEMO-CUST-HV01', sourceType: 'Customer', sourceCode: DEMO_ACCOUNT_NO, masterProductNo: 'PW-HV01', amountType: 'Price', unitPrice: money(listOf('PW-HV01') * 0.85) },
    { ruleId: 'DEMO-QB-MT02-12', sourceType: 'AllCustomers', masterProductNo: 'PW-MT02', amountType: 'Price', minQuantity: 12, unitPrice: money(listOf('PW-MT02') * 0.9) },
    { ruleId: 'DEMO-QB-MT02-48', sourceType: 'AllCustomers', masterProductNo: 'PW-MT02', amountType: 'Price', minQuantity: 48, unitPrice: money(listOf('PW-MT02') * 0.8) },
    { ruleId: 'DEMO-QB-AC05-24', sourceType: 'AllCustomers', masterProductNo: 'PW-AC05', amountType: 'Discount', minQuantity: 24, lineDiscountPercent: '15' },
    { ruleId: 'DEMO-PROMO-WJ02', sourceType: 'AllCustomers', masterProductNo: 'PW-WJ02', amountType: 'Discount', lineDiscountPercent: '20', startDate: '2025-01-01T00:00:00Z', endDate: '2035-12-31T23:59:59Z' },
    { ruleId: 'DEMO-EXPIRED-WT01', sourceType: 'AllCustomers', masterProductNo: 'PW-WT01', amountType: 'Discount', lineDiscountPercent: '30', startDate: '2024-01-01T00:00:00Z', endDate: '2024-12-31T23:59:59Z' },
  ];
}

/** The demo customer's ship-tos: SYD and MEL are charged by weight band, BNE per package. */
export const DEMO_SHIP_TOS = [
  { shipToCode: 'SYD', name: 'Harbourside Outfitters Sydney', address: '12 Wharf Road', postcode: '2000', city: 'Sydney', state: 'NSW', agent: 'TOLL', service: 'IPEC' },
  { shipToCode: 'MEL', name: 'Harbourside Outfitters Melbourne', address: '88 Flinders Lane', postcode: '3000', city: 'Melbourne', state: 'VIC', agent: 'TNT', service: 'ROAD' },
  { shipToCode: 'BNE', name: 'Harbourside Outfitters Brisbane', address: '5 Eagle Street', postcode: '4000', city: 'Brisbane', state: 'QLD', agent: 'AUSPOST', service: 'PARCEL' },
] as const;

export function demoRoutes(): PostcodeRouteItem[] {
  return DEMO_SHIP_TOS.map((s) => ({
    id: `DEMO-AU-${s.postcode}`,
    countryRegionCode: 'AU',
    postcode: s.postcode,
    defaultRoadAgentCode: s.agent,
    defaultRoadServiceCode: s.service,
    defaultAirAgentCode: 'TNT',
    defaultAirServiceCode: 'OVERNIGHT',
    defaultMethod: 'Road',
  }));
}

const WEIGHT_EDGES = [0, 5, 10, 25, 50, 100] as const;
/** Free freight from this order value (net) up. */
export const FREE_FREIGHT_FROM = 2500;

/** Weight bands × a value band below the free-freight threshold, and a free rate above it, for each banded service. */
export function demoRates(): FreightRateItem[] {
  const services = [
    { agent: 'TOLL', service: 'IPEC', base: 12, perKg: 0.9 },
    { agent: 'TNT', service: 'ROAD', base: 14, perKg: 0.85 },
    { agent: 'TNT', service: 'OVERNIGHT', base: 30, perKg: 2.4 },
  ];
  return services.flatMap((s) => {
    const common = { countryRegionCode: 'AU', shippingAgentCode: s.agent, shippingAgentServiceCode: s.service };
    const banded = WEIGHT_EDGES.map((min, i): FreightRateItem => {
      const max = WEIGHT_EDGES[i + 1];
      return {
        id: `DEMO-${s.agent}-${s.service}-W${i}`, ...common,
        minWeight: String(min), ...(max === undefined ? {} : { maxWeight: String(max) }),
        minInvoiceValue: '0', maxInvoiceValue: String(FREE_FREIGHT_FROM),
        price: (s.base + s.perKg * (max ?? min * 1.5)).toFixed(4),
      };
    });
    return [...banded, { id: `DEMO-${s.agent}-${s.service}-FREE`, ...common, minInvoiceValue: String(FREE_FREIGHT_FROM), price: '0.0000' }];
  });
}

export const DEMO_PACKAGE_TYPES: readonly PackageTypeItem[] = [
  { id: 'DEMO-SATCHEL-S', countryRegionCode: 'AU', description: 'Small satchel', length: '35', width: '25', height: '6', weight: '3', freightCost: '9.5000' },
  { id: 'DEMO-SATCHEL-L', countryRegionCode: 'AU', description: 'Large satchel', length: '45', width: '35', height: '10', weight: '5', freightCost: '13.0000' },
  { id: 'DEMO-CARTON-M', countryRegionCode: 'AU', description: 'Carton 50 × 40 × 30', length: '50', width: '40', height: '30', weight: '20', freightCost: '24.0000' },
  { id: 'DEMO-CARTON-L', countryRegionCode: 'AU', description: 'Carton 60 × 50 × 40', length: '60', width: '50', height: '40', weight: '25', freightCost: '32.0000' },
];

/** GST through the jurisdiction chain (one federal jurisdiction in one area per state) and the same 10 % as a GST matrix. */
export function demoTax(): { jurisdictions: JurisdictionItem[]; areas: AreaItem[]; gstRates: GstPostingRatesItem[] } {
  return {
    jurisdictions: [{
      code: 'DEMO-AU-GST',
      description: 'Goods and services tax',
      rates: [
        { taxGroupCode: 'GOODS', ratePercent: '10', effectiveDate: '2000-07-01' },
        { taxGroupCode: 'WORKWEAR', ratePercent: '10', effectiveDate: '2000-07-01' },
      ],
    }],
    areas: ['NSW', 'VIC', 'QLD'].map((state) => ({ code: `AU-${state}`, description: `Australia, ${state}`, jurisdictionCodes: ['DEMO-AU-GST'] })),
    gstRates: [{
      rates: [
        { businessPostingGroup: 'DOMESTIC', productPostingGroup: 'GST10', ratePercent: '10' },
        { businessPostingGroup: 'DOMESTIC', productPostingGroup: 'GSTFREE', ratePercent: '0' },
        { businessPostingGroup: 'EXPORT', productPostingGroup: 'GST10', ratePercent: '0' },
      ],
    }],
  };
}

export function demoCustomer(admin: { name: string; email: string }): CustomerItem {
  return {
    account: {
      accountNo: DEMO_ACCOUNT_NO,
      name: 'Harbourside Outfitters Pty Ltd',
      status: 'Active',
      paymentTermsCode: 'NET30',
      billToAddress1: '12 Wharf Road',
      billToPostCode: '2000',
      billToCity: 'Sydney',
      billToState: 'NSW',
      billToCountryRegionCode: 'AU',
      billToCountryRegionName: 'Australia',
      phoneNo: '+61 2 9000 0000',
      email: 'accounts@demo.portway.test',
      defaultShipToCode: 'SYD',
      creditLimit: '25000.00',
      creditBalance: '6120.50',
      priceMode: 'Standard',
      priceGroup: DEMO_PRICE_GROUP,
      discGroup: DEMO_DISCOUNT_GROUP,
      // Blank allowedBrands: every brand that is not restricted; SUMMIT (restricted) on indent. VAULT stays hidden.
      indentBrands: 'SUMMIT',
      taxLiable: true,
      taxAreaCode: 'AU-NSW',
    },
    shipToAddresses: DEMO_SHIP_TOS.map((s) => ({
      shipToCode: s.shipToCode,
      shipToName: s.name,
      shipToAddress1: s.address,
      shipToPostCode: s.postcode,
      shipToCity: s.city,
      shipToState: s.state,
      shipToCountryRegionCode: 'AU',
      taxLiable: true,
      taxAreaCode: `AU-${s.state}`,
      isFirstNations: false,
    })),
    admin: { name: admin.name, email: admin.email },
  };
}

/** A paid invoice and its payment, an open invoice not yet due, an overdue one and a credit memo. */
export function demoLedger(today: Date): LedgerEntryItem[] {
  const entry = (n: number, fields: Omit<LedgerEntryItem, 'entryNo' | 'accountNo' | 'originType' | 'currencyCode'>): LedgerEntryItem => ({
    entryNo: 14_000_000 + n, accountNo: DEMO_ACCOUNT_NO, originType: 'Erp', currencyCode: 'AUD', ...fields,
  });
  return [
    entry(1, { documentNo: 'SI-DEMO-0001', externalDocumentNo: 'PO-4471', documentType: 'Invoice', documentDate: isoDay(today, -75), postingDate: isoDay(today, -75), dueDate: isoDay(today, -45), amount: '3280.00', remainingAmount: '0.00', isOpen: false }),
    entry(2, { documentNo: 'PAY-DEMO-0001', documentType: 'Payment', documentDate: isoDay(today, -44), postingDate: isoDay(today, -44), amount: '-3280.00', remainingAmount: '0.00', isOpen: false }),
    entry(3, { documentNo: 'SI-DEMO-0002', externalDocumentNo: 'PO-4502', documentType: 'Invoice', documentDate: isoDay(today, -50), postingDate: isoDay(today, -50), dueDate: isoDay(today, -20), amount: '1845.50', remainingAmount: '1845.50', isOpen: true }),
    entry(4, { documentNo: 'SI-DEMO-0003', externalDocumentNo: 'PO-4533', documentType: 'Invoice', documentDate: isoDay(today, -10), postingDate: isoDay(today, -10), dueDate: isoDay(today, 20), amount: '4475.00', remainingAmount: '4475.00', isOpen: true }),
    entry(5, { documentNo: 'CM-DEMO-0001', externalDocumentNo: 'RA-118', documentType: 'CreditMemo', documentDate: isoDay(today, -5), postingDate: isoDay(today, -5), amount: '-200.00', remainingAmount: '-200.00', isOpen: true }),
  ];
}

/** The whole world, as of `today` (UTC midnight of the day the command runs), its pictures under `picturesUrl`. */
export function demoWorld(today: Date, admin: { name: string; email: string } = DEMO_BUYER, picturesUrl = DEMO_PICTURES_URL): DemoWorld {
  const products = demoProducts();
  const tax = demoTax();
  return {
    brands: DEMO_BRANDS,
    categories: demoCategories(),
    products,
    media: demoMedia(picturesUrl),
    inventory: demoInventory(products, today),
    priceRules: demoPriceRules(products),
    routes: demoRoutes(),
    rates: demoRates(),
    packageTypes: DEMO_PACKAGE_TYPES,
    ...tax,
    customers: [demoCustomer(admin)],
    ledger: demoLedger(today),
  };
}
