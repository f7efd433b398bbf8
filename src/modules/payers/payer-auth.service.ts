// Who a payer is and how they prove it: payer accounts per environment, with the console's rules (an email,
// a password of 12 to 200 characters hashed with scrypt, five wrong passwords in a row lock sign-in for 15
// minutes, an optional TOTP second factor, server-side sessions behind a cookie holding a random token of
// which only the SHA-256 is stored, a CSRF token each, 12 hours idle) and a 6-digit transaction PIN set at
// sign-up (five wrong PINs in a row lock paying and withdrawing for 15 minutes). The console's parts are
// used, not copied: the shared password hashing, session tokens, lockout policy and TOTP (src/shared/), and
// the console's email rule and refusal.
import type { PayerRow } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { hashSecret, verifyNobody, verifySecret } from '../../shared/passwords.js';
import type { Environment } from '../../shared/scope.js';
import {
  LOCK_AFTER_FAILURES,
  LOCK_MS,
  MIN_PASSWORD_LENGTH,
  SESSION_IDLE_MS,
  isPin,
  isRecoveryCode,
  lockedMinutes,
  newRecoveryCodes,
  newSessionToken,
  newTotp,
  recoveryCodeHash,
  sessionIdOf,
  totpValid,
} from '../../shared/sign-in.js';
import { ConsoleError, normalizeEmail } from '../console/index.js';
import * as repo from './payers.repo.js';

/** The wallet's session cookie: its own name (not the console's), on the whole origin so the checkout sees it. */
export const WALLET_COOKIE = 'cowrie_wallet';

export interface PayerIdentity {
  id: string;
  environment: Environment;
  email: string;
  totp: boolean;
}

export interface PayerSession {
  id: string;
  csrf: string;
  payer: PayerIdentity;
}

/** What checking a transaction PIN came to. */
export type PinCheck = { ok: true } | { ok: false; locked: boolean; message: string };

const identity = (p: PayerRow): PayerIdentity => ({ id: p.id, environment: p.environment, email: p.email, totp: p.totp_secret !== null });

export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    throw new ConsoleError(400, `Choose a password of ${MIN_PASSWORD_LENGTH} to 200 characters.`);
  }
}

export function checkNewPin(pin: string): void {
  if (!isPin(pin)) throw new ConsoleError(400, 'A transaction PIN is 6 digits.');
}

export class PayerAuth {
  constructor(private readonly deps: { db: Db; clock: Clock; hashCost: number }) {}

  private now(): number {
    return this.deps.clock.nowMs();
  }

  /** A new payer account in the environment, signed in at once. */
  async signUp(input: { environment: Environment; email: string; password: string; pin: string; ip: string }) {
    let email: string;
    try {
      email = normalizeEmail(input.email);
    } catch {
      throw new ConsoleError(400, 'Enter a valid email address.');
    }
    checkNewPassword(input.password);
    checkNewPin(input.pin);
    if (await repo.findPayerByEmail(this.deps.db, input.environment, email)) {
      throw new ConsoleError(409, 'An account with this email exists already: sign in instead.');
    }
    const now = this.now();
    const row: PayerRow = {
      id: newId('payer'),
      environment: input.environment,
      email,
      password_hash: await hashSecret(input.password, this.deps.hashCost),
      totp_secret: null,
      totp_pending: null,
      recovery_codes: null,
      failed_logins: 0,
      locked_until: null,
      pin_hash: await hashSecret(input.pin, this.deps.hashCost),
      pin_failures: 0,
      pin_locked_until: null,
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    try {
      await repo.insertPayer(this.deps.db, row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConsoleError(409, 'An account with this email exists already: sign in instead.');
      throw err;
    }
    await this.audit(row.id, email, 'payer.signed_up', null, input.ip);
    return this.openSession(row, input.ip);
  }

  /** Checks a sign-in; answers the new session's cookie token. */
  async login(input: { environment: Environment; email: string; password: string; code?: string; ip: string }) {
    const wrong = new ConsoleError(401, 'The email or password is not right.');
    let email: string;
    try {
      email = normalizeEmail(input.email);
    } catch {
      throw wrong;
    }
    const payer = await repo.findPayerByEmail(this.deps.db, input.environment, email);
    const now = this.now();
    if (!payer) {
      // The same work and answer as a wrong password, so that which emails exist does not show.
      await verifyNobody(input.password, this.deps.hashCost);
      throw wrong;
    }
    const minutes = lockedMinutes(payer.locked_until, now);
    if (minutes !== null) {
      throw new ConsoleError(423, `This account is locked after ${LOCK_AFTER_FAILURES} wrong passwords; try again in ${minutes} minutes.`);
    }
    const fail = async (error: ConsoleError): Promise<never> => {
      const failed = await repo.countFailedLogin(this.deps.db, payer.id, LOCK_AFTER_FAILURES, now + LOCK_MS, now);
      await this.audit(payer.id, payer.email, 'login.failed', { attempt: failed }, input.ip);
      if (failed >= LOCK_AFTER_FAILURES) {
        throw new ConsoleError(423, `This account is locked for 15 minutes after ${LOCK_AFTER_FAILURES} wrong passwords.`);
      }
      throw error;
    };
    if (!(await verifySecret(input.password, payer.password_hash))) return fail(wrong);
    if (payer.totp_secret !== null) {
      const code = (input.code ?? '').trim();
      if (code === '') throw new ConsoleError(401, 'Enter the 6-digit code from your authenticator app, or a recovery code.');
      const right = isRecoveryCode(code) ? await this.useRecoveryCode(payer, code, now) : totpValid(payer.email, payer.totp_secret, code);
      if (!right) return fail(new ConsoleError(401, 'The authentication code is not right.'));
    }
    await repo.resetFailedLogins(this.deps.db, payer.id, now);
    return this.openSession(payer, input.ip);
  }

  /** A recovery code instead of the TOTP code: each works once. */
  private async useRecoveryCode(payer: PayerRow, code: string, now: number): Promise<boolean> {
    const hashes = JSON.parse(payer.recovery_codes ?? '[]') as string[];
    const hash = recoveryCodeHash(code);
    if (!hashes.includes(hash)) return false;
    const left = JSON.stringify(hashes.filter((h) => h !== hash));
    return repo.useRecoveryCode(this.deps.db, payer.id, payer.recovery_codes!, left, now);
  }

  private async openSession(payer: PayerRow, ip: string): Promise<{ token: string; session: PayerSession }> {
    const now = this.now();
    const { token, id, csrf } = newSessionToken();
    const session = { id, payer_id: payer.id, csrf, created_at: now, expires_at: now + SESSION_IDLE_MS };
    await repo.insertSession(this.deps.db, session);
    await this.audit(payer.id, payer.email, 'login', null, ip);
    return { token, session: { id: session.id, csrf: session.csrf, payer: identity(payer) } };
  }

  /**
   * The session of a cookie's token in this environment, renewed for another 12 idle hours; null when
   * unknown, expired or another environment's (cookies do not tell ports apart).
   */
  async session(environment: Environment, token: string | undefined): Promise<PayerSession | null> {
    const id = sessionIdOf(token);
    if (id === null) return null;
    const row = await repo.findSession(this.deps.db, id);
    const now = this.now();
    if (!row) return null;
    if (Number(row.expires_at) <= now) {
      await repo.deleteSession(this.deps.db, row.session_id);
      return null;
    }
    const payer = await repo.findPayer(this.deps.db, row.payer_id);
    if (!payer || payer.environment !== environment) return null;
    if (Number(row.expires_at) - now < SESSION_IDLE_MS - 60_000)
      await repo.touchSession(this.deps.db, row.session_id, now + SESSION_IDLE_MS);
    return { id: row.session_id, csrf: row.csrf, payer: identity(payer) };
  }

  async logout(session: PayerSession, ip: string): Promise<void> {
    await repo.deleteSession(this.deps.db, session.id);
    await this.audit(session.payer.id, session.payer.email, 'logout', null, ip);
  }

  /**
   * Checks a transaction PIN before a payment or a withdrawal: five wrong in a row lock both for 15
   * minutes; a right one resets the count.
   */
  async checkPin(payerId: string, pin: string, ip: string | null): Promise<PinCheck> {
    const payer = await repo.findPayer(this.deps.db, payerId);
    const now = this.now();
    if (!payer) return { ok: false, locked: false, message: 'No such payer account.' };
    const minutes = lockedMinutes(payer.pin_locked_until, now);
    if (minutes !== null) {
      return {
        ok: false,
        locked: true,
        message: `Paying is locked after ${LOCK_AFTER_FAILURES} wrong PINs; try again in ${minutes} minutes.`,
      };
    }
    if (!isPin(pin) || !(await verifySecret(pin, payer.pin_hash))) {
      const failed = await repo.countPinFailure(this.deps.db, payerId, LOCK_AFTER_FAILURES, now + LOCK_MS);
      await this.audit(payerId, payer.email, 'pin.failed', { attempt: failed }, ip);
      return failed >= LOCK_AFTER_FAILURES
        ? {
            ok: false,
            locked: false,
            message: `The PIN is not right. Paying is now locked for 15 minutes after ${LOCK_AFTER_FAILURES} wrong PINs.`,
          }
        : { ok: false, locked: false, message: 'The PIN is not right.' };
    }
    if (Number(payer.pin_failures) > 0) await repo.resetPinFailures(this.deps.db, payerId);
    return { ok: true };
  }

  /** Starts setting up TOTP: a new secret, kept pending until a code from it is confirmed. */
  async startTotp(session: PayerSession): Promise<{ secret: string; uri: string }> {
    const setup = newTotp(session.payer.email);
    await repo.setTotp(this.deps.db, session.payer.id, { totp_pending: setup.secret }, this.now());
    return setup;
  }

  /** Turns TOTP on with a code from the new secret; answers ten single-use recovery codes, shown once. */
  async confirmTotp(session: PayerSession, code: string, ip: string): Promise<string[]> {
    const payer = (await repo.findPayer(this.deps.db, session.payer.id))!;
    if (!payer.totp_pending) throw new ConsoleError(400, 'Start setting up two-step sign-in first.');
    if (!totpValid(payer.email, payer.totp_pending, code)) {
      throw new ConsoleError(400, 'That code is not right; enter the 6 digits your app shows now.');
    }
    const recovery = newRecoveryCodes();
    const patch = { totp_secret: payer.totp_pending, totp_pending: null, recovery_codes: JSON.stringify(recovery.hashes) };
    await repo.setTotp(this.deps.db, payer.id, patch, this.now());
    await this.audit(payer.id, payer.email, 'payer.totp_enabled', null, ip);
    return recovery.codes;
  }

  async disableTotp(session: PayerSession, password: string, ip: string): Promise<void> {
    const payer = (await repo.findPayer(this.deps.db, session.payer.id))!;
    if (!(await verifySecret(password, payer.password_hash))) throw new ConsoleError(400, 'Your password is not right.');
    await repo.setTotp(this.deps.db, payer.id, { totp_secret: null, totp_pending: null, recovery_codes: null }, this.now());
    await this.audit(payer.id, payer.email, 'payer.totp_disabled', null, ip);
  }

  /** Records who did what to a payer account, when and from where. */
  async audit(payerId: string, actor: string, action: string, detail: Record<string, unknown> | null, ip: string | null): Promise<void> {
    await repo.insertAudit(this.deps.db, {
      id: newId('payer_audit'),
      payer_id: payerId,
      actor,
      action,
      detail: detail === null ? null : JSON.stringify(detail),
      ip,
      created_at: this.now(),
    });
  }
}
