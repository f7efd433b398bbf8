// One helper for every identifier: a known prefix and 24 base62 characters. The first 8 are the creation
// time in milliseconds, so that ids made close together sit close together in every index (a random key
// writes a different index page for each new row; in SQLite's WAL and PostgreSQL's that is most of the
// cost of an insert). The other 16 are random (95 bits), so ids stay unguessable.
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
  console_user: 'usr',
  audit_entry: 'aud',
  chain_transfer: 'ct',
  webhook_delivery: 'whd',
  webhook_attempt: 'wha',
  ledger_movement: 'lmv',
  payer: 'pyr',
  payer_audit: 'paud',
  payout: 'po',
  payer_topup: 'ptu',
  payer_mpesa_topup: 'ptm',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG a few kilobytes at a time rather than once per id.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** Uniform random base62 text of the given length (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    if (offset >= pool.length) {
      pool = randomBytes(POOL_BYTES);
      offset = 0;
    }
    const b = pool[offset]!;
    // Each byte is used once: zeroed as it is taken, so no value stays in memory to be read again.
    pool[offset++] = 0;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

const TIME_DIGITS = 8;

/** Milliseconds as 8 base62 digits, zero-padded (enough until the year 8800), ordered like the numbers. */
export function timeBase62(ms: number): string {
  let out = '';
  let n = Math.floor(ms);
  for (let i = 0; i < TIME_DIGITS; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function newId(kind: IdKind): string {
  // Real time, not a merchant's sandbox clock: the time part serves storage, not the domain.
  return `${ID_PREFIXES[kind]}_${timeBase62(Date.now())}${randomBase62(24 - TIME_DIGITS)}`;
}

/** True when `value` looks like an id of this kind; used to answer 404 early for impossible ids. */
export function isIdOf(kind: IdKind, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-Za-z]{1,64}$`).test(value);
}
