// One helper for every identifier: a known prefix and 24 random base62 characters (about 143 bits),
// so ids are unguessable and never carry order or meaning.
import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  payment_intent: 'pi',
  payment_link: 'pl',
  refund: 're',
  settlement: 'stl',
  event: 'evt',
  webhook_endpoint: 'we',
  customer: 'cus',
  quote: 'qt',
  key: 'key',
  merchant: 'mer',
  app: 'app',
  request: 'req',
  payment_attempt: 'pa',
  rail_payment: 'rp',
  wallet_allocation: 'wa',
  wallet_deposit: 'wd',
  webhook_delivery: 'whd',
  webhook_attempt: 'wha',
  ledger_movement: 'lmv',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 text of the given length (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const b of bytes) {
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBase62(24)}`;
}

/** True when `value` looks like an id of this kind; used to answer 404 early for impossible ids. */
export function isIdOf(kind: IdKind, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-Za-z]{1,64}$`).test(value);
}
