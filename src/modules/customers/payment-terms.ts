/**
 * An account's payment terms code (`paymentTermsCode`: COD, PREPAID, NET7 … NET60, EOM, EOM30, as
 * customers.schemas.ts takes them) in words for the buyer: `NET30` → "30 days net". The named codes
 * by a table, the numbered ones by their shape, so NET21 or EOM60 read right if the list grows; a
 * code neither explains is shown as it is, never guessed at.
 */

const NAMED: Readonly<Record<string, string>> = {
  COD: 'Cash on delivery',
  PREPAID: 'Payment in advance',
  EOM: 'Due at the end of the month',
};

const days = (n: number) => (n === 1 ? '1 day' : `${n} days`);

const SHAPES: ReadonlyArray<[RegExp, (n: number) => string]> = [
  // Net: the whole amount within so many days of the invoice.
  [/^NET(\d{1,3})$/, (n) => (n === 0 ? 'Due on receipt' : `${days(n)} net`)],
  // So many days after the end of the invoice's month.
  [/^EOM(\d{1,3})$/, (n) => (n === 0 ? NAMED.EOM as string : `${days(n)} after the end of the month`)],
];

/** The terms in words; a code it does not know, trimmed, as it is. */
export function paymentTermsWords(code: string): string {
  const trimmed = code.trim();
  const key = trimmed.toUpperCase();
  const named = NAMED[key];
  if (named !== undefined) return named;
  for (const [shape, words] of SHAPES) {
    const m = shape.exec(key);
    if (m !== null) return words(Number(m[1]));
  }
  return trimmed;
}
