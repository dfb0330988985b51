/**
 * GS1 EAN-8 / EAN-13: digits only, and the last digit is the check digit over the others
 * (weights 3 and 1 alternating from the right). A mistyped EAN is refused instead of answered
 * "not found", so a caller learns that the code, not the catalogue, is wrong.
 */
const EAN_SHAPE = /^(\d{8}|\d{13})$/;

export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** Why `code` is not a valid EAN-8/EAN-13, or undefined when it is. */
export function eanProblem(code: string): string | undefined {
  if (!EAN_SHAPE.test(code)) return 'must be an EAN of 8 or 13 digits';
  const expected = gs1CheckDigit(code.slice(0, -1));
  if (Number(code.at(-1)) !== expected) return `has a wrong check digit (expected ${expected})`;
  return undefined;
}
