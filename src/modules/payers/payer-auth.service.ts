// Who a payer is and how they prove it: payer accounts per environment, with the console's rules (an email,
// a password of 12 to 200 characters hashed with scrypt, five wrong passwords in a row lock sign-in for 15
// minutes, an optional TOTP second factor, server-side sessions behind a cookie holding a random token of
// which only the SHA-256 is stored, a CSRF token each, 12 hours idle) and a 6-digit transaction PIN set at
// sign-up (five wrong PINs in a row lock paying and withdrawing for 15 minutes). The console's parts are
// used, not copied: the shared password hashing, session tokens, sign-in steps, lockout policy and TOTP
// (src/shared/: the email rule too), and the console's refusal.
import type { PayerRow } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { hashSecret, verifySecret } from '../../shared/passwords.js';
import type { Environment } from '../../shared/scope.js';
import {
  LOCK_AFTER_FAILURES,
  LOCK_MS,
  MIN_PASSWORD_LENGTH,
  currentSession,
  emailOf,
  isPin,
  lockedMinutes,
  newTotp,
  openSession,
  signIn,
  type SignInStore,
  totpToTurnOn,
} from '../../shared/sign-in.js';
import { ConsoleError } from '../console/index.js';
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

const identity = (p: Pick<PayerRow, 'id' | 'environment' | 'email' | 'totp_secret'>): PayerIdentity => ({
  id: p.id,
  environment: p.environment,
  email: p.email,
  totp: p.totp_secret !== null,
});

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
    const email = emailOf(input.email);
    if (email === null) throw new ConsoleError(400, 'Enter a valid email address.');
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

  /** Checks a sign-in (the shared sign-in steps over this environment's payers); answers the new session's cookie token. */
  async login(input: { environment: Environment; email: string; password: string; code?: string; ip: string }) {
    const payer = await signIn(this.signInStore(input.environment, input.ip), input, {
      now: this.now(),
      hashCost: this.deps.hashCost,
      refusal: ConsoleError,
      words: {
        codeNeeded: 'Enter the 6-digit code from your authenticator app, or a recovery code.',
        wrongRecoveryCode: 'The authentication code is not right.',
      },
    });
    return this.openSession(payer, input.ip);
  }

  /** The environment's payers as the shared sign-in steps see them; a recovery code works once. */
  private signInStore(environment: Environment, ip: string): SignInStore<PayerRow> {
    const db = this.deps.db;
    return {
      findByEmail: (email) => repo.findPayerByEmail(db, environment, email),
      countFailure: (payer, lockAfter, lockUntil, now) => repo.countFailedLogin(db, payer.id, lockAfter, lockUntil, now),
      resetFailures: (payer, now) => repo.resetFailedLogins(db, payer.id, now),
      spendRecoveryCode: async (payer, hash, now) => {
        const hashes = JSON.parse(payer.recovery_codes ?? '[]') as string[];
        if (!hashes.includes(hash)) return false;
        return repo.useRecoveryCode(db, payer.id, payer.recovery_codes!, JSON.stringify(hashes.filter((h) => h !== hash)), now);
      },
      audit: (payer, action, detail) => this.audit(payer.id, payer.email, action, detail, ip),
    };
  }

  private async openSession(payer: PayerRow, ip: string): Promise<{ token: string; session: PayerSession }> {
    const { token, session } = await openSession((row) => repo.insertSession(this.deps.db, { ...row, payer_id: payer.id }), this.now());
    await this.audit(payer.id, payer.email, 'login', null, ip);
    return { token, session: { id: session.id, csrf: session.csrf, payer: identity(payer) } };
  }

  /**
   * The session of a cookie's token in this environment, renewed for another 12 idle hours; null when
   * unknown, expired or another environment's (cookies do not tell ports apart).
   */
  async session(environment: Environment, token: string | undefined): Promise<PayerSession | null> {
    const db = this.deps.db;
    const row = await currentSession(
      {
        find: (id) => repo.findSession(db, id, environment),
        touch: (id, until) => repo.touchSession(db, id, until),
        remove: (id) => repo.deleteSession(db, id),
      },
      token,
      this.now(),
    );
    return row && { id: row.session_id, csrf: row.csrf, payer: identity(row) };
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
    const recovery = totpToTurnOn(payer, code, ConsoleError);
    const patch = { totp_secret: recovery.secret, totp_pending: null, recovery_codes: JSON.stringify(recovery.hashes) };
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
