import { Dec } from '../../platform/decimal.js';
import type { BatchDefinition } from '../../platform/batch/definition.js';
import type { ItemError } from '../../platform/schema/item-validator.js';
import { upsertPriceRules } from './pricing.repository.js';
import { MAX_DISCOUNT_PERCENT, PriceRuleItemSchema, TARGET_FIELDS, type PriceRuleItem } from './pricing.schemas.js';

/** ERPs send blanks for codes a rule does not use, so a blank code means "not given". */
function isBlank(value: string | null | undefined): boolean {
  return value === undefined || value === null || value.trim() === '';
}

const blankToNull = (value: string | null | undefined): string | null => (isBlank(value) ? null : (value as string));

const SOURCE_CODE_MEANING: Record<PriceRuleItem['sourceType'], string> = {
  AllCustomers: 'none',
  Customer: 'the accountNo',
  CustomerPriceGroup: "the account's priceGroup",
  CustomerDiscountGroup: "the account's discGroup",
};

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:[Zz]|([+-])(\d\d)(?::?(\d\d))?)$/;

/**
 * An RFC 3339 date-time as whole UTC seconds plus its fraction digits, so two instants compare
 * exactly: `Date` would drop digits past the millisecond and refuses a leap second.
 */
function instant(value: string): { seconds: number; fraction: string } | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh = '0', om = '0'] = m;
  const day = new Date(Date.UTC(2000, Number(mo) - 1, Number(d)));
  day.setUTCFullYear(Number(y)); // Date.UTC maps years 0–99 to 1900–1999
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const seconds = day.getTime() / 1000 + Number(h) * 3600 + Number(mi) * 60 + Number(s) - (sign ? offset : 0);
  return { seconds, fraction: fraction.replace(/0+$/, '') };
}

function isBefore(a: string, b: string): boolean {
  const x = instant(a);
  const y = instant(b);
  if (!x || !y) return false;
  if (x.seconds !== y.seconds) return x.seconds < y.seconds;
  const width = Math.max(x.fraction.length, y.fraction.length);
  return x.fraction.padEnd(width, '0') < y.fraction.padEnd(width, '0');
}

function checkTarget(item: PriceRuleItem): ItemError[] {
  const given = TARGET_FIELDS.filter((f) => !isBlank(item[f]));
  if (given.length === 0) {
    // The key is fine, so the problem is pinned to the most specific target rather than the item.
    return [{ path: '/sku', message: 'a rule needs exactly one target among sku, masterProductNo and itemDiscountGroup; none was given (a blank counts as not given)' }];
  }
  if (given.length === 1) return [];
  return given.map((field) => {
    const others = given.filter((f) => f !== field);
    return {
      path: `/${field}`,
      message: `a rule targets exactly one of sku, masterProductNo and itemDiscountGroup; ${others.join(' and ')} ${others.length > 1 ? 'are' : 'is'} also given`,
    };
  });
}

function checkSource(item: PriceRuleItem): ItemError[] {
  const blank = isBlank(item.sourceCode);
  if (item.sourceType === 'AllCustomers') {
    return blank ? [] : [{ path: '/sourceCode', message: 'must be blank when sourceType is AllCustomers (the rule applies to every customer)' }];
  }
  return blank
    ? [{ path: '/sourceCode', message: `is required when sourceType is ${item.sourceType} (${SOURCE_CODE_MEANING[item.sourceType]})` }]
    : [];
}

function checkAmount(item: PriceRuleItem): ItemError[] {
  const problems: ItemError[] = [];
  if (item.amountType === 'Price' && (item.unitPrice === undefined || item.unitPrice === null)) {
    problems.push({ path: '/unitPrice', message: 'is required when amountType is Price' });
  }
  if (item.amountType === 'Discount' && (item.lineDiscountPercent === undefined || item.lineDiscountPercent === null)) {
    problems.push({ path: '/lineDiscountPercent', message: 'is required when amountType is Discount' });
  }
  // The decimal keyword knows only a minimum; the cap is checked exactly here.
  if (item.lineDiscountPercent !== undefined && item.lineDiscountPercent !== null
    && new Dec(item.lineDiscountPercent).greaterThan(MAX_DISCOUNT_PERCENT)) {
    problems.push({ path: '/lineDiscountPercent', message: `must be at most ${MAX_DISCOUNT_PERCENT} (a percentage)` });
  }
  return problems;
}

function checkValidity(item: PriceRuleItem): ItemError[] {
  if (!item.startDate || !item.endDate || !isBefore(item.endDate, item.startDate)) return [];
  return [{ path: '/endDate', message: `must not be before startDate (${item.startDate}); the rule would never apply` }];
}

export function checkPriceRule(item: PriceRuleItem): ItemError[] {
  return [...checkTarget(item), ...checkSource(item), ...checkAmount(item), ...checkValidity(item)];
}

/** Blank codes are stored as NULL: "not given" has one spelling in the table. */
function normalise(item: PriceRuleItem): PriceRuleItem {
  return {
    ...item,
    sourceCode: blankToNull(item.sourceCode),
    sku: blankToNull(item.sku),
    masterProductNo: blankToNull(item.masterProductNo),
    itemDiscountGroup: blankToNull(item.itemDiscountGroup),
  };
}

export const priceRuleBatch: BatchDefinition<PriceRuleItem> = {
  name: 'pricing/rules',
  itemSchema: PriceRuleItemSchema,
  keyFields: ['/ruleId'],
  keyOf: (item) => item.ruleId,
  check: checkPriceRule,
  write: (tx, items) => upsertPriceRules(tx, items.map(normalise)),
};
