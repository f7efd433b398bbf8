// Passwords and PINs of every signed-in area (the merchant console, the payer's account): scrypt, the memory-hard key derivation built into Node.js
// (OpenSSL's), with a random salt per hash; compared in constant time. The stored form names its
// parameters (`scrypt$N$r$p$salt$hash`), so they can be raised later without breaking existing hashes. The
// cost (N as a power of two) is the operator's COWRIE_PASSWORD_HASH_COST: 15 by default, lowered in tests.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** The default cost: N = 2^15 (32 MiB of memory, tens of milliseconds a hash). */
export const DEFAULT_HASH_COST = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(secret: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(secret.normalize('NFKC'), salt, KEY_LENGTH, { ...opts, maxmem: 128 * opts.N! * opts.r! * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashSecret(secret: string, cost = DEFAULT_HASH_COST): Promise<string> {
  const N = 2 ** cost;
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * The work of one verification of a user that does not exist, so that an unknown email takes as long as a
 * wrong password (hashes made at this cost).
 */
export async function verifyNobody(secret: string, cost = DEFAULT_HASH_COST): Promise<void> {
  await scrypt(secret, Buffer.alloc(16), { N: 2 ** cost, r: R, p: P });
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const want = Buffer.from(hash, 'base64url');
  const got = await scrypt(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return want.length === got.length && timingSafeEqual(want, got);
}

/** A password for a new user or a reset: 20 characters from a 56-letter alphabet without look-alikes (about 116 bits). */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(40);
  let out = '';
  for (const b of bytes) {
    if (b >= 224) continue; // 224 = 4 * 56: no modulo bias
    out += alphabet[b % alphabet.length];
    if (out.length === 20) break;
  }
  return out.length === 20 ? out : generatePassword();
}
