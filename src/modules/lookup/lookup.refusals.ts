import { refusalDomain } from '../../platform/refusal.js';

/** The body's list of keys: `skus` by SKU, `eans` by EAN. */
export type KeysField = 'skus' | 'eans';

/** What the lookup refuses of a request's keys (nothing is looked up then). */
export interface LookupRefusals {
  'keys-not-a-list': { field: KeysField };
  'keys-count': { field: KeysField; count: number; maximum: number };
  /** Each bad key by its index in the list. */
  'keys-invalid': { field: KeysField; keys: Array<{ index: number; message: string }> };
}

export const lookupRefusals = refusalDomain<LookupRefusals>('lookup');
