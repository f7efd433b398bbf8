// Refunds of live M-Pesa payments are Daraja reversals: one row per refund, written before Daraja is called
// (so a crash never sends a second reversal), with the SHA-256 of its unguessable result-callback token, the
// payment reversed (receipt and shillings), Daraja's ids once it acknowledged, and the result.
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));
  await db.schema
    .createTable('mpesa_reversals')
    .addColumn('refund_id', 'text', (c) => c.primaryKey())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull())
    .addColumn('callback_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('amount_kes', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text')
    .addColumn('originator_conversation_id', 'text')
    .addColumn('result_code', 'text')
    .addColumn('result_desc', 'text')
    .addColumn('reversal_receipt', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mpesa_reversals_conversation').on('mpesa_reversals').column('conversation_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mpesa_reversals').execute();
}
