// Where each merchant's sandbox clock offset is kept (the `sandbox_clocks` table), for MerchantClocks
// (src/shared/clock.ts), and the same rule in SQL for the sweeps that read many merchants' records at once.
import { sql, type RawBuilder } from 'kysely';
import type { SandboxOffsets } from '../shared/clock.js';
import type { Db } from './transaction.js';
import { transaction } from './transaction.js';

export function sandboxOffsets(db: Db): SandboxOffsets {
  return {
    async offsetMs(merchantId) {
      const row = await db.selectFrom('sandbox_clocks').select('offset_ms').where('merchant_id', '=', merchantId).executeTakeFirst();
      return row ? Number(row.offset_ms) : 0;
    },
    advance(merchantId, deltaMs, nowMs, commitWith) {
      return transaction(db, async (tx) => {
        await tx
          .insertInto('sandbox_clocks')
          .values({ merchant_id: merchantId, offset_ms: deltaMs, updated_at: nowMs })
          .onConflict((oc) =>
            oc.column('merchant_id').doUpdateSet((eb) => ({
              offset_ms: eb('sandbox_clocks.offset_ms', '+', deltaMs),
              updated_at: nowMs,
            })),
          )
          .execute();
        const row = await tx
          .selectFrom('sandbox_clocks')
          .select('offset_ms')
          .where('merchant_id', '=', merchantId)
          .executeTakeFirstOrThrow();
        await commitWith?.inTransaction(tx, Number(row.offset_ms));
        return Number(row.offset_ms);
      });
    },
  };
}

/**
 * "Now by the record's merchant's clock", in SQL, for a query that joins `sandbox_clocks as <alias>` with
 * sandboxClockJoin: real time for live records, plus the merchant's offset for sandbox records.
 */
export function merchantNowSql(nowMs: number, alias = 'sc'): RawBuilder<number> {
  return sql<number>`${nowMs} + coalesce(${sql.ref(`${alias}.offset_ms`)}, 0)`;
}
