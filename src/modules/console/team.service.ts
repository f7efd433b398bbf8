// What the owner manages beyond the payments: the team (users added with a one-time password, roles
// changed, users removed, never the last owner), the merchant's time zone, and each user's recovery codes
// (ten, single-use, shown once, made when two-step sign-in is turned on or on request).
import type { ConsoleRole, ConsoleUserRow } from '../../db/schema.js';
import { transaction, type Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { DEFAULT_TIME_ZONE, isTimeZone } from '../../shared/display.js';
import { newRecoveryCodes, recoveryCodeHash } from '../../shared/sign-in.js';
import { lockMerchant } from '../merchants/index.js';
import { ROLES, ConsoleError, type ConsoleAuth, type ConsoleSession } from './console-auth.service.js';
import * as repo from './team.repo.js';

export class ConsoleTeam {
  constructor(private readonly deps: { db: Db; clock: Clock; auth: ConsoleAuth }) {}

  private owner(session: ConsoleSession): void {
    if (session.user.role !== 'owner') throw new ConsoleError(403, `Your role (${session.user.role}) cannot do this.`);
  }

  users(merchantId: string): Promise<ConsoleUserRow[]> {
    return repo.usersOf(this.deps.db, merchantId);
  }

  /** A new user of the owner's merchant with a one-time password (shown once). */
  async add(session: ConsoleSession, email: string, role: string, ip: string): Promise<{ user: ConsoleUserRow; password: string }> {
    this.owner(session);
    const made = await this.deps.auth.createUser(session.user.merchantId, email, role).catch((err: unknown) => {
      throw new ConsoleError(400, err instanceof Error ? err.message : String(err));
    });
    await this.deps.auth.audit(
      session.user.merchantId,
      session.user,
      session.user.email,
      'user.created',
      made.user.id,
      { email: made.user.email, role },
      ip,
    );
    return made;
  }

  /** Changes a user's role; the merchant keeps at least one owner. */
  async setRole(session: ConsoleSession, userId: string, role: string, ip: string): Promise<ConsoleUserRow> {
    this.owner(session);
    if (!(ROLES as readonly string[]).includes(role)) throw new ConsoleError(400, `Choose a role: ${ROLES.join(', ')}.`);
    const merchantId = session.user.merchantId;
    const user = await transaction(this.deps.db, async (tx) => {
      // The merchant's row is locked so that two owners demoting each other cannot leave none.
      await lockMerchant(tx, merchantId);
      const target = (await repo.usersOf(tx, merchantId)).find((u) => u.id === userId);
      if (!target) throw new ConsoleError(404, 'There is no such user in your team.');
      if (target.role === 'owner' && role !== 'owner' && (await repo.ownerCount(tx, merchantId)) <= 1) {
        throw new ConsoleError(409, 'This is the last owner: make someone else an owner first.');
      }
      await repo.setRole(tx, merchantId, userId, role as ConsoleRole, this.deps.clock.nowMs());
      return target;
    });
    await this.deps.auth.audit(
      merchantId,
      session.user,
      session.user.email,
      'user.role_changed',
      userId,
      { from: user.role, to: role },
      ip,
    );
    return { ...user, role: role as ConsoleRole };
  }

  /** Removes a user (and signs it out); never the last owner. */
  async remove(session: ConsoleSession, userId: string, ip: string): Promise<ConsoleUserRow> {
    this.owner(session);
    const merchantId = session.user.merchantId;
    const user = await transaction(this.deps.db, async (tx) => {
      await lockMerchant(tx, merchantId);
      const target = (await repo.usersOf(tx, merchantId)).find((u) => u.id === userId);
      if (!target) throw new ConsoleError(404, 'There is no such user in your team.');
      if (target.role === 'owner' && (await repo.ownerCount(tx, merchantId)) <= 1) {
        throw new ConsoleError(409, 'This is the last owner: make someone else an owner first.');
      }
      await repo.deleteUser(tx, merchantId, userId);
      return target;
    });
    await this.deps.auth.audit(merchantId, session.user, session.user.email, 'user.removed', userId, { email: user.email }, ip);
    return user;
  }

  async timeZone(merchantId: string): Promise<string> {
    return (await repo.timeZoneOf(this.deps.db, merchantId)) ?? DEFAULT_TIME_ZONE;
  }

  async setTimeZone(session: ConsoleSession, timeZone: string, ip: string): Promise<void> {
    this.owner(session);
    const tz = timeZone.trim();
    if (!isTimeZone(tz))
      throw new ConsoleError(400, `“${tz.slice(0, 60)}” is not a time zone: choose one from the list (for example Africa/Nairobi).`);
    await repo.setTimeZone(this.deps.db, session.user.merchantId, tz);
    await this.deps.auth.audit(
      session.user.merchantId,
      session.user,
      session.user.email,
      'merchant.time_zone',
      session.user.merchantId,
      { time_zone: tz },
      ip,
    );
  }

  /** Ten new recovery codes for the user (the old ones stop working); shown once. */
  async newRecoveryCodes(session: ConsoleSession, ip: string): Promise<string[]> {
    const { codes, hashes } = newRecoveryCodes();
    await repo.replaceRecoveryCodes(this.deps.db, session.user.id, hashes, this.deps.clock.nowMs());
    await this.deps.auth.audit(session.user.merchantId, session.user, session.user.email, 'user.recovery_codes', session.user.id, null, ip);
    return codes;
  }

  recoveryCodesLeft(userId: string): Promise<number> {
    return repo.recoveryCodesLeft(this.deps.db, userId);
  }

  /** Spends one of the user's recovery codes: true when it was an unused one. */
  spendRecoveryCode(userId: string, code: string): Promise<boolean> {
    return repo.spendRecoveryCode(this.deps.db, userId, recoveryCodeHash(code));
  }
}
