/**
 * A refusal: what a service says when it will not do what was asked, in its own terms. A module
 * declares its closed set of codes once, each with the details a caller needs to say where the
 * problem is (the line index, the SKU, the account status), and never an HTTP status or a JSON
 * pointer: the API's adapter (platform/http/refusal-problems.ts) turns a refusal into an RFC 9457
 * problem, the portal's (portal/refusals.ts) into messages on the form's fields and lines.
 *
 * Refusals are thrown, as errors were before them: a refusal inside a transaction rolls it back on
 * its way out, and a caller that has nothing to say about it lets it pass to the one that has.
 */
export class Refusal<Code extends string = string, Details = unknown> extends Error {
  constructor(
    /** The module whose set of codes `code` belongs to. */
    readonly domain: string,
    readonly code: Code,
    /** The refusal in words, as the API's `detail` says it unless its adapter words it otherwise. */
    message: string,
    readonly details: Details,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** Every refusal of a module, from its map of code → details: narrowed by `code`, each has its own `details`. */
export type RefusalOf<Codes> = { [C in keyof Codes & string]: Refusal<C, Codes[C]> }[keyof Codes & string];

/** A module's refusals: the one place that makes them and that recognises them. */
export interface RefusalDomain<Codes> {
  readonly name: string;
  refuse<C extends keyof Codes & string>(code: C, message: string, details: Codes[C]): Refusal<C, Codes[C]>;
  /** Whether `error` is one of this module's refusals. */
  is(error: unknown): error is RefusalOf<Codes>;
}

/** Declares a module's closed set of refusal codes (`Codes`: code → details) under a name no other module uses. */
export function refusalDomain<Codes>(name: string): RefusalDomain<Codes> {
  return {
    name,
    refuse: (code, message, details) => new Refusal(name, code, message, details),
    is: (error: unknown): error is RefusalOf<Codes> => error instanceof Refusal && error.domain === name,
  };
}
