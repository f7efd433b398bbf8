// What every signed-in area (the merchant console, the payer's account) does the same way, without knowing
// its tables: session tokens (the cookie holds a random token, only its SHA-256 is stored, with a CSRF
// secret beside it), the idle expiry, the lockout policy for passwords and PINs, TOTP second factors and
// their single-use recovery codes, and the steps of signing in (signIn) over a small store each area
// implements over its own repository. Passwords and PINs are hashed by ./passwords.ts.
import { randomBytes, randomInt } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { verifyNobody, verifySecret } from './passwords.js';
import { sha256Hex } from './sha256.js';

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

/** A new session: the cookie's token, the stored id (its SHA-256) and the session's CSRF secret. */
export function newSessionToken(): { token: string; id: string; csrf: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, id: sha256Hex(token), csrf: randomBytes(24).toString('base64url') };
}

/** The stored id of a cookie's token; null for anything that cannot be one. */
export function sessionIdOf(token: string | undefined): string | null {
  if (!token || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  return sha256Hex(token);
}

/** A session row as every area stores it (beside its account's id). */
export interface NewSession {
  id: string;
  csrf: string;
  created_at: number;
  expires_at: number;
}

/** Opens a session: `insert` stores it under the area's account; answers the cookie's token and the row. */
export async function openSession(
  insert: (session: NewSession) => Promise<void>,
  now: number,
): Promise<{ token: string; session: NewSession }> {
  const { token, id, csrf } = newSessionToken();
  const session = { id, csrf, created_at: now, expires_at: now + SESSION_IDLE_MS };
  await insert(session);
  return { token, session };
}

/** What finding a session needs of an area's repository. */
export interface SessionStore<R extends { session_id: string; expires_at: number | string }> {
  find(id: string): Promise<R | undefined>;
  touch(id: string, expiresAt: number): Promise<void>;
  remove(id: string): Promise<void>;
}

/**
 * The session row of a cookie's token, renewed for another SESSION_IDLE_MS (at most once a minute, so that
 * a page's requests do not each write); null when unknown or expired (an expired one is deleted).
 */
export async function currentSession<R extends { session_id: string; expires_at: number | string }>(
  store: SessionStore<R>,
  token: string | undefined,
  now: number,
): Promise<R | null> {
  const id = sessionIdOf(token);
  if (id === null) return null;
  const row = await store.find(id);
  if (!row) return null;
  if (Number(row.expires_at) <= now) {
    await store.remove(row.session_id);
    return null;
  }
  if (Number(row.expires_at) - now < SESSION_IDLE_MS - 60_000) await store.touch(row.session_id, now + SESSION_IDLE_MS);
  return row;
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
  return sha256Hex(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

/**
 * The check of turning TOTP on: a pending secret (set up by newTotp) and a right code from it. Answers the
 * secret to keep and ten recovery codes: their hashes to store, the codes to show once.
 */
export function totpToTurnOn(
  account: { email: string; totp_pending: string | null },
  code: string,
  Refusal: new (status: number, message: string) => Error,
): { secret: string; codes: string[]; hashes: string[] } {
  if (!account.totp_pending) throw new Refusal(400, 'Start setting up two-step sign-in first.');
  if (!totpValid(account.email, account.totp_pending, code)) {
    throw new Refusal(400, 'That code is not right; enter the 6 digits your app shows now.');
  }
  return { secret: account.totp_pending, ...newRecoveryCodes() };
}

/** Whether text typed at sign-in looks like a recovery code rather than a 6-digit TOTP code. */
export const isRecoveryCode = (text: string): boolean => /^[a-z0-9]{16}$/i.test(text.replace(/[\s-]/g, ''));

/** The email of a sign-in or sign-up form, trimmed and lower-cased; null when it is not an email. */
export function emailOf(text: string): string | null {
  const email = text.trim().toLowerCase();
  return /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/.test(email) ? email : null;
}

/** An account as the sign-in steps read it, from whichever table its area keeps it in. */
export interface SignInAccount {
  email: string;
  password_hash: string;
  totp_secret: string | null;
  locked_until: number | string | null;
}

/** What the sign-in steps need of an area's repository: the console and the payers' wallet each implement it. */
export interface SignInStore<A extends SignInAccount> {
  findByEmail(email: string): Promise<A | undefined>;
  /** One more wrong answer; the `lockAfter`-th in a row locks sign-in until `lockUntil`. Answers the count. */
  countFailure(account: A, lockAfter: number, lockUntil: number, now: number): Promise<number>;
  /** A right sign-in: the count back to zero and any lock lifted. */
  resetFailures(account: A, now: number): Promise<void>;
  /** Spends the unused recovery code of this hash: true for the one caller that spent it. */
  spendRecoveryCode(account: A, hash: string, now: number): Promise<boolean>;
  /** Records a step in the area's audit trail. */
  audit(account: A, action: 'login.failed' | 'login.recovery_code', detail: Record<string, unknown> | null): Promise<void>;
}

export interface SignInRules {
  now: number;
  hashCost: number;
  /** The area's refusal, made with the HTTP status its page answers and words for the person. */
  refusal: new (status: number, message: string) => Error;
  /** The area's own words: a code is needed (or is not one), a recovery code is wrong or spent. */
  words: { codeNeeded: string; wrongRecoveryCode: string };
}

/**
 * The steps of signing in to any area: the email, the lock, the password, then (when TOTP is on) the app's
 * code or one single-use recovery code. A wrong password or code counts toward the lock and the
 * LOCK_AFTER_FAILURES-th in a row locks sign-in for LOCK_MS; a code that is not one is refused without
 * counting; a right sign-in resets the count. An unknown email costs the same work and gets the same answer
 * as a wrong password, so which emails exist does not show. Answers the account; the area opens its session.
 */
export async function signIn<A extends SignInAccount>(
  store: SignInStore<A>,
  input: { email: string; password: string; code?: string | undefined },
  rules: SignInRules,
): Promise<A> {
  const { now, refusal: Refusal } = rules;
  const wrong = new Refusal(401, 'The email or password is not right.');
  const email = emailOf(input.email);
  const account = email === null ? undefined : await store.findByEmail(email);
  if (!account) {
    await verifyNobody(input.password, rules.hashCost);
    throw wrong;
  }
  const minutes = lockedMinutes(account.locked_until, now);
  if (minutes !== null) {
    throw new Refusal(423, `This account is locked after ${LOCK_AFTER_FAILURES} wrong passwords; try again in ${minutes} minutes.`);
  }
  const fail = async (error: Error): Promise<never> => {
    const failed = await store.countFailure(account, LOCK_AFTER_FAILURES, now + LOCK_MS, now);
    await store.audit(account, 'login.failed', { attempt: failed });
    if (failed >= LOCK_AFTER_FAILURES) {
      throw new Refusal(423, `This account is locked for 15 minutes after ${LOCK_AFTER_FAILURES} wrong passwords.`);
    }
    throw error;
  };
  if (!(await verifySecret(input.password, account.password_hash))) return fail(wrong);
  if (account.totp_secret !== null) {
    const code = (input.code ?? '').replace(/\s/g, '');
    if (isRecoveryCode(code)) {
      if (!(await store.spendRecoveryCode(account, recoveryCodeHash(code), now))) {
        return fail(new Refusal(401, rules.words.wrongRecoveryCode));
      }
      await store.audit(account, 'login.recovery_code', null);
    } else {
      if (!/^[0-9]{6}$/.test(code)) throw new Refusal(401, rules.words.codeNeeded);
      if (!totpValid(account.email, account.totp_secret, code)) return fail(new Refusal(401, 'The authentication code is not right.'));
    }
  }
  await store.resetFailures(account, now);
  return account;
}
