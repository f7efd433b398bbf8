// The sandbox clock: a per-merchant offset ahead of real time, moved by POST /sandbox/clock/advance.
// Every time-based rule of a sandbox record (expiry, quote locks, refund windows, settlement maturing,
// report windows) reads the merchant's clock from here; live time never moves.
import type { Kysely } from 'kysely';
import type { DB, EnvironmentColumn } from '../../db/schema.js';
import { offsetClock, type Clock } from '../../shared/clock.js';

export async function sandboxOffsetMs(db: Kysely<DB>, merchantId: string): Promise<number> {
  const row = await db.selectFrom('sandbox_clocks').select('offset_ms').where('merchant_id', '=', merchantId).executeTakeFirst();
  return row ? Number(row.offset_ms) : 0;
}

/** The clock of a merchant's environment: the base clock for live, base plus the offset for sandbox. */
export async function merchantClock(db: Kysely<DB>, base: Clock, merchantId: string, environment: EnvironmentColumn): Promise<Clock> {
  if (environment === 'live') return base;
  const offset = await sandboxOffsetMs(db, merchantId);
  return offset === 0 ? base : offsetClock(base, offset);
}

/** Moves a merchant's sandbox time forward; answers the new offset. */
export async function advanceSandboxClock(db: Kysely<DB>, base: Clock, merchantId: string, seconds: number): Promise<number> {
  const deltaMs = seconds * 1000;
  const now = base.nowMs();
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('sandbox_clocks')
      .values({ merchant_id: merchantId, offset_ms: deltaMs, updated_at: now })
      .onConflict((oc) =>
        oc.column('merchant_id').doUpdateSet((eb) => ({
          offset_ms: eb('sandbox_clocks.offset_ms', '+', deltaMs),
          updated_at: now,
        })),
      )
      .execute();
    return Number((await trx.selectFrom('sandbox_clocks').select('offset_ms').where('merchant_id', '=', merchantId).executeTakeFirstOrThrow()).offset_ms);
  });
}
