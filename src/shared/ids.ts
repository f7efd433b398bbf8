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

/** Writes `count` uniform random base62 character codes into `codes` from `at` (rejection sampling, no modulo bias). */
function fillRandom(codes: number[], at: number, count: number): void {
  for (let i = at; i < at + count;) {
    if (offset >= pool.length) {
      pool = randomBytes(POOL_BYTES);
      offset = 0;
    }
    const b = pool[offset]!;
    // Each byte is used once: zeroed as it is taken, so no value stays in memory to be read again.
    pool[offset++] = 0;
    if (b < 248) codes[i++] = ALPHABET.charCodeAt(b % 62);
  }
}

const TIME_DIGITS = 8;

/** Writes `ms` as TIME_DIGITS base62 character codes into `codes` from `at`, zero-padded. */
function fillTime(codes: number[], at: number, ms: number): void {
  let n = Math.floor(ms);
  for (let i = at + TIME_DIGITS - 1; i >= at; i--) {
    codes[i] = ALPHABET.charCodeAt(n % 62);
    n = Math.floor(n / 62);
  }
}

// An id is made as one string from an array of character codes (a string built a character at a time
// allocated one string per character: a tenth of what a create intent allocated).
const text = (codes: number[]) => String.fromCharCode.apply(null, codes);

/** Uniform random base62 text of the given length. */
export function randomBase62(length: number): string {
  const codes = new Array<number>(length);
  fillRandom(codes, 0, length);
  return text(codes);
}

/** Milliseconds as 8 base62 digits, zero-padded (enough until the year 8800), ordered like the numbers. */
export function timeBase62(ms: number): string {
  const codes = new Array<number>(TIME_DIGITS);
  fillTime(codes, 0, ms);
  return text(codes);
}

/** Per kind, the codes of `<prefix>_` followed by room for the 24 characters, filled anew for each id. */
const idCodes = new Map<IdKind, number[]>();

export function newId(kind: IdKind): string {
  let codes = idCodes.get(kind);
  if (!codes) {
    const head = `${ID_PREFIXES[kind]}_`;
    codes = [...head].map((c) => c.charCodeAt(0)).concat(new Array<number>(24).fill(0));
    idCodes.set(kind, codes);
  }
  const at = codes.length - 24;
  // Real time, not a merchant's sandbox clock: the time part serves storage, not the domain.
  fillTime(codes, at, Date.now());
  fillRandom(codes, at + TIME_DIGITS, 24 - TIME_DIGITS);
  return text(codes);
}

/** True when `value` looks like an id of this kind; used to answer 404 early for impossible ids. */
export function isIdOf(kind: IdKind, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-Za-z]{1,64}$`).test(value);
}
