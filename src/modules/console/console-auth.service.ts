// Who may use the console, and how they prove it: users of one merchant with a role, a password (scrypt) and
// an optional TOTP second factor; server-side sessions behind a cookie holding a random token (only its
// SHA-256 is stored), with a CSRF token each and a 12-hour idle expiry; five consecutive wrong passwords lock
// an account for 15 minutes. The sign-in route spends the client address's budget (LOGINS_PER_MINUTE) before
// calling login. The operator's commands (`cowrie users create`, `reset-password`) use the same service.
import type { ConsoleRole, ConsoleUserRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { DEFAULT_HASH_COST, generatePassword, hashSecret, verifySecret } from '../../shared/passwords.js';
import {
  currentSession,
  emailOf,
  isPin,
  LOCK_AFTER_FAILURES,
  LOCK_MS,
  lockedMinutes,
  MIN_PASSWORD_LENGTH,
  newTotp,
  openSession,
  signIn,
  type SignInStore,
  totpToTurnOn,
} from '../../shared/sign-in.js';
import { findMerchant } from '../merchants/index.js';
import * as repo from './console.repo.js';
import * as teamRepo from './team.repo.js';

export const ROLES = ['owner', 'developer', 'viewer'] as const satisfies readonly ConsoleRole[];
export { LOGINS_PER_MINUTE } from '../../shared/sign-in.js';

export interface ConsoleUser {
  id: string;
  merchantId: string;
  email: string;
  role: ConsoleRole;
  totp: boolean;
}

export interface ConsoleSession {
  id: string;
  csrf: string;
  user: ConsoleUser;
}

/** A refusal of the console, with the HTTP status its page answers and words for the user. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleError';
  }
}

export function normalizeEmail(text: string): string {
  const email = emailOf(text);
  if (email === null) {
    throw new AppError('parameter_invalid', `Invalid email: ${JSON.stringify(text.slice(0, 100))}`, { param: 'email' });
  }
  return email;
}

export function userView(u: ConsoleUserRow) {
  return { id: u.id, email: u.email, role: u.role, merchant: u.merchant_id };
}

/** A new console user with a generated password (shown once); the operator's command and the first start. */
export async function createConsoleUser(
  db: Db,
  clock: Clock,
  merchantId: string,
  emailText: string,
  role: string,
  hashCost = DEFAULT_HASH_COST,
): Promise<{ user: ConsoleUserRow; password: string }> {
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new AppError('parameter_invalid', `Invalid role: choose ${ROLES.join(', ')}.`, { param: 'role' });
  }
  const email = normalizeEmail(emailText);
  if (!(await findMerchant(db, merchantId)))
    throw new AppError('resource_missing', `No such merchant: '${merchantId}'`, { param: 'merchant' });
  if (await repo.findUserByEmail(db, email)) {
    throw new AppError('parameter_invalid', `A console user with the email ${email} exists already.`, { param: 'email' });
  }
  const password = generatePassword();
  const now = clock.nowMs();
  const user: ConsoleUserRow = {
    id: newId('console_user'),
    merchant_id: merchantId,
    email,
    role: role as ConsoleRole,
    password_hash: await hashSecret(password, hashCost),
    totp_secret: null,
    totp_pending: null,
    failed_logins: 0,
    locked_until: null,
    created_at: now,
    updated_at: now,
  };
  await repo.insertUser(db, user);
  await repo.insertAudit(db, {
    id: newId('audit_entry'),
    merchant_id: merchantId,
    user_id: null,
    actor: 'operator',
    action: 'user.created',
    target: user.id,
    detail: JSON.stringify({ email, role }),
    ip: null,
    created_at: now,
  });
  return { user, password };
}

export class ConsoleAuth {
  constructor(private readonly deps: { db: Db; clock: Clock; hashCost: number }) {}

  private now(): number {
    return this.deps.clock.nowMs();
  }

  /** A new user with a generated password (shown once). */
  async createUser(merchantId: string, emailText: string, role: string): Promise<{ user: ConsoleUserRow; password: string }> {
    return createConsoleUser(this.deps.db, this.deps.clock, merchantId, emailText, role, this.deps.hashCost);
  }

  /** Refuses (400 parameter_invalid) an email that is not valid or already has a console user. */
  async checkNewEmail(emailText: string): Promise<void> {
    const email = normalizeEmail(emailText);
    if (await repo.findUserByEmail(this.deps.db, email)) {
      throw new AppError('parameter_invalid', `A console user with the email ${email} exists already.`, { param: 'email' });
    }
  }

  /** A new generated password (shown once); signs the user out everywhere and lifts a lock. */
  async resetPassword(emailText: string): Promise<{ user: ConsoleUserRow; password: string }> {
    const user = await repo.findUserByEmail(this.deps.db, normalizeEmail(emailText));
    if (!user) throw new AppError('resource_missing', `No console user with the email ${emailText.trim()}.`, { param: 'email' });
    const password = generatePassword();
    await repo.setPassword(this.deps.db, user.id, await hashSecret(password, this.deps.hashCost), this.now());
    await repo.deleteSessionsOf(this.deps.db, user.id);
    await this.audit(user.merchant_id, null, 'operator', 'user.password_reset', user.id, null, null);
    return { user: (await repo.findUser(this.deps.db, user.id))!, password };
  }

  /** Checks a login (the shared sign-in steps over the console's users); answers the new session's cookie token. */
  async login(input: { email: string; password: string; code?: string; ip: string }): Promise<{ token: string; session: ConsoleSession }> {
    const now = this.now();
    const user = await signIn(this.signInStore(input.ip), input, {
      now,
      hashCost: this.deps.hashCost,
      refusal: ConsoleError,
      words: {
        codeNeeded: 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
        wrongRecoveryCode: 'That recovery code is not right, or it was used already.',
      },
    });
    const { token, session } = await openSession((row) => repo.insertSession(this.deps.db, { ...row, user_id: user.id }), now);
    await this.audit(user.merchant_id, user, user.email, 'login', user.id, null, input.ip);
    const totp = user.totp_secret !== null;
    return {
      token,
      session: {
        id: session.id,
        csrf: session.csrf,
        user: { id: user.id, merchantId: user.merchant_id, email: user.email, role: user.role, totp },
      },
    };
  }

  /** The console's users as the shared sign-in steps see them. */
  private signInStore(ip: string): SignInStore<ConsoleUserRow> {
    const db = this.deps.db;
    return {
      findByEmail: (email) => repo.findUserByEmail(db, email),
      countFailure: (user, lockAfter, lockUntil, now) => repo.countFailedLogin(db, user.id, lockAfter, lockUntil, now),
      resetFailures: (user, now) => repo.resetFailedLogins(db, user.id, now),
      spendRecoveryCode: (user, hash) => teamRepo.spendRecoveryCode(db, user.id, hash),
      audit: (user, action, detail) => this.audit(user.merchant_id, user, user.email, action, user.id, detail, ip),
    };
  }

  /** The session of a cookie's token, renewed for another 12 idle hours; null when unknown or expired. */
  async session(token: string | undefined): Promise<ConsoleSession | null> {
    const db = this.deps.db;
    const row = await currentSession(
      {
        find: (id) => repo.findSession(db, id),
        touch: (id, until) => repo.touchSession(db, id, until),
        remove: (id) => repo.deleteSession(db, id),
      },
      token,
      this.now(),
    );
    if (!row) return null;
    return {
      id: row.session_id,
      csrf: row.csrf,
      user: { id: row.id, merchantId: row.merchant_id, email: row.email, role: row.role, totp: row.totp_secret !== null },
    };
  }

  async logout(session: ConsoleSession, ip: string): Promise<void> {
    await repo.deleteSession(this.deps.db, session.id);
    await this.audit(session.user.merchantId, session.user, session.user.email, 'logout', session.user.id, null, ip);
  }

  /** Needs the current password; signs the user's other sessions out. */
  async changePassword(session: ConsoleSession, current: string, next: string, ip: string): Promise<void> {
    const user = (await repo.findUser(this.deps.db, session.user.id))!;
    if (!(await verifySecret(current, user.password_hash))) throw new ConsoleError(400, 'Your current password is not right.');
    if (next.length < MIN_PASSWORD_LENGTH || next.length > 200) {
      throw new ConsoleError(400, `Choose a new password of ${MIN_PASSWORD_LENGTH} to 200 characters.`);
    }
    await repo.setPassword(this.deps.db, user.id, await hashSecret(next, this.deps.hashCost), this.now());
    await repo.deleteSessionsOf(this.deps.db, user.id, session.id);
    await this.audit(user.merchant_id, session.user, user.email, 'user.password_changed', user.id, null, ip);
  }

  /** Starts setting up TOTP: a new secret, kept pending until a code from it is confirmed. */
  async startTotp(session: ConsoleSession): Promise<{ secret: string; uri: string }> {
    const { secret, uri } = newTotp(session.user.email);
    await repo.setTotp(this.deps.db, session.user.id, { totp_pending: secret }, this.now());
    return { secret, uri };
  }

  /** Turns TOTP on with a code from the pending secret; answers the ten recovery codes (shown once). */
  async confirmTotp(session: ConsoleSession, code: string, ip: string): Promise<string[]> {
    const user = (await repo.findUser(this.deps.db, session.user.id))!;
    const { secret, codes, hashes } = totpToTurnOn(user, code, ConsoleError);
    await repo.setTotp(this.deps.db, user.id, { totp_secret: secret, totp_pending: null }, this.now());
    await teamRepo.replaceRecoveryCodes(this.deps.db, user.id, hashes, this.now());
    await this.audit(user.merchant_id, session.user, user.email, 'user.totp_enabled', user.id, null, ip);
    return codes;
  }

  async disableTotp(session: ConsoleSession, password: string, ip: string): Promise<void> {
    const user = (await repo.findUser(this.deps.db, session.user.id))!;
    if (!(await verifySecret(password, user.password_hash))) throw new ConsoleError(400, 'Your password is not right.');
    await repo.setTotp(this.deps.db, user.id, { totp_secret: null, totp_pending: null }, this.now());
    await teamRepo.replaceRecoveryCodes(this.deps.db, user.id, [], this.now());
    await this.audit(user.merchant_id, session.user, user.email, 'user.totp_disabled', user.id, null, ip);
  }

  /** Whether the merchant has a transaction PIN. */
  async hasPin(merchantId: string): Promise<boolean> {
    return ((await repo.findPin(this.deps.db, merchantId))?.pin_hash ?? null) !== null;
  }

  /** Sets or changes the merchant's transaction PIN (owner only; needs the owner's password). */
  async setPin(session: ConsoleSession, password: string, pin: string, ip: string): Promise<void> {
    if (session.user.role !== 'owner') throw new ConsoleError(403, 'Only an owner sets the transaction PIN.');
    const user = (await repo.findUser(this.deps.db, session.user.id))!;
    if (!(await verifySecret(password, user.password_hash))) throw new ConsoleError(400, 'Your password is not right.');
    if (!isPin(pin)) throw new ConsoleError(400, 'A transaction PIN is 6 digits.');
    const had = await this.hasPin(user.merchant_id);
    await repo.setPin(this.deps.db, user.merchant_id, await hashSecret(pin, this.deps.hashCost));
    await this.audit(user.merchant_id, session.user, user.email, had ? 'pin.changed' : 'pin.set', user.merchant_id, null, ip);
  }

  /** Checks the PIN for a balance refund; five wrong in a row lock PIN refunds for 15 minutes. */
  async checkPin(session: ConsoleSession, pin: string, ip: string): Promise<void> {
    const merchantId = session.user.merchantId;
    const state = await repo.findPin(this.deps.db, merchantId);
    const now = this.now();
    if (!state?.pin_hash) throw new ConsoleError(400, 'Set a transaction PIN first (Your account).');
    const minutes = lockedMinutes(state.pin_locked_until, now);
    if (minutes !== null) {
      throw new ConsoleError(423, `PIN refunds are locked after ${LOCK_AFTER_FAILURES} wrong PINs; try again in ${minutes} minutes.`);
    }
    if (!(await verifySecret(pin, state.pin_hash))) {
      const failed = await repo.countPinFailure(this.deps.db, merchantId, LOCK_AFTER_FAILURES, now + LOCK_MS);
      await this.audit(merchantId, session.user, session.user.email, 'pin.failed', null, { attempt: failed }, ip);
      if (failed >= LOCK_AFTER_FAILURES)
        throw new ConsoleError(423, `PIN refunds are locked for 15 minutes after ${LOCK_AFTER_FAILURES} wrong PINs.`);
      throw new ConsoleError(400, 'The transaction PIN is not right.');
    }
    await repo.resetPinFailures(this.deps.db, merchantId);
  }

  /** Records who did what, when and from where; the owner reads it in the console. */
  async audit(
    merchantId: string,
    user: { id: string } | null,
    actor: string,
    action: string,
    target: string | null,
    detail: Record<string, unknown> | null,
    ip: string | null,
  ): Promise<void> {
    await repo.insertAudit(this.deps.db, {
      id: newId('audit_entry'),
      merchant_id: merchantId,
      user_id: user?.id ?? null,
      actor,
      action,
      target,
      detail: detail === null ? null : JSON.stringify(detail),
      ip,
      created_at: this.now(),
    });
  }

  async auditLog(merchantId: string, limit = 200) {
    return repo.listAudit(this.deps.db, merchantId, limit);
  }
}
