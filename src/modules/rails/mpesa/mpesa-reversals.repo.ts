// The only SQL of M-Pesa reversals (the refunds of live M-Pesa payments).
import type { MpesaReversalRow, MpesaReversalsTable, Q } from '../../../db/schema.js';

export async function insertReversal(db: Q, row: MpesaReversalRow): Promise<void> {
  await db.insertInto('mpesa_reversals').values(row).execute();
}

export async function findReversal(db: Q, refundId: string): Promise<MpesaReversalRow | undefined> {
  return db.selectFrom('mpesa_reversals').selectAll().where('refund_id', '=', refundId).executeTakeFirst();
}

/** By Daraja's ConversationID, or by the refund id (the reference of a reversal Daraja has not acknowledged). */
export async function findReversalByReference(db: Q, reference: string): Promise<MpesaReversalRow | undefined> {
  return (
    (await db.selectFrom('mpesa_reversals').selectAll().where('conversation_id', '=', reference).executeTakeFirst()) ??
    (await findReversal(db, reference))
  );
}

export async function findReversalByToken(db: Q, tokenHash: string): Promise<MpesaReversalRow | undefined> {
  return db.selectFrom('mpesa_reversals').selectAll().where('callback_token_hash', '=', tokenHash).executeTakeFirst();
}

/** Moves a reversal from one of `from` to its next state; answers whether it moved (a final one never moves). */
export async function moveReversal(
  db: Q,
  refundId: string,
  from: readonly MpesaReversalRow['state'][],
  patch: Partial<
    Pick<
      MpesaReversalsTable,
      | 'state'
      | 'callback_token_hash'
      | 'conversation_id'
      | 'originator_conversation_id'
      | 'result_code'
      | 'result_desc'
      | 'reversal_receipt'
    >
  > & {
    updated_at: number;
  },
): Promise<boolean> {
  const res = await db
    .updateTable('mpesa_reversals')
    .set(patch)
    .where('refund_id', '=', refundId)
    .where('state', 'in', [...from])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
