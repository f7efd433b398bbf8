// What every signed-in area (the merchant console, the payer's account) does the same way, without knowing
// its tables: session tokens (the cookie holds a random token, only its SHA-256 is stored, with a CSRF
// secret beside it), the idle expiry, the lockout policy for passwords and PINs, TOTP second factors and
// their single-use recovery codes. Passwords and PINs are hashed by ./passwords.ts.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import * as OTPAuth from 'otpauth';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** Wrong passwords (or PINs) in a row that lock the account (or PIN actions)... */
export const LOCK_AFTER_FAILURES = 5;
/** ...for this long. */
export const LOCK_MS = 15 * 60_000;
/** Sign-in attempts a minute per client address, counted by a sign-in route before any password is checked. */
export const LOGINS_PER_MINUTE = 20;
export const MIN_PASSWORD_LENGTH = 12;
/** Recovery codes given when TOTP is turned on. */
export const RECOVERY_CODE_COUNT = 10;

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A new session: the cookie's token, the stored id (its SHA-256) and the session's CSRF secret. */
export function newSessionToken(): { token: string; id: string; csrf: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, id: sha256(token), csrf: randomBytes(24).toString('base64url') };
}

/** The stored id of a cookie's token; null for anything that cannot be one. */
export function sessionIdOf(token: string | undefined): string | null {
  if (!token || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  return sha256(token);
}

/** Minutes left of a lock (rounded up), or null when there is none at `now`. */
export function lockedMinutes(lockedUntil: number | string | null, now: number): number | null {
  if (lockedUntil === null || Number(lockedUntil) <= now) return null;
  return Math.ceil((Number(lockedUntil) - now) / 60_000);
}

/** Whether the text is a transaction PIN's form: 6 digits. */
export const isPin = (text: string): boolean => /^[0-9]{6}$/.test(text);

function totpFor(label: string, secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: 'Cowrie', label, algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
}

/** A new TOTP secret (base32) and the otpauth:// URI an authenticator app scans. */
export function newTotp(label: string): { secret: string; uri: string } {
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  return { secret, uri: totpFor(label, secret).toString() };
}

/** Whether a 6-digit code is right for the secret now (one 30-second step either side is accepted). */
export function totpValid(label: string, secret: string, code: string): boolean {
  const token = code.replace(/\s/g, '');
  return /^[0-9]{6}$/.test(token) && totpFor(label, secret).validate({ token, window: 1 }) !== null;
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * Ten single-use recovery codes (shown once) and their hashes (stored). 16 letters from a 31-letter alphabet
 * (about 79 bits) in four groups: random enough that a plain SHA-256 is a safe way to store them.
 */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const letters = Array.from({ length: 16 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return letters.match(/.{4}/g)!.join('-');
  });
  return { codes, hashes: codes.map(recoveryCodeHash) };
}

/** A recovery code's stored hash; spaces, dashes and case do not matter. */
export function recoveryCodeHash(code: string): string {
  return sha256(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

/** Whether text typed at sign-in looks like a recovery code rather than a 6-digit TOTP code. */
export const isRecoveryCode = (text: string): boolean => /^[a-z0-9]{16}$/i.test(text.replace(/[\s-]/g, ''));
