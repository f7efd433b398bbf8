// Payers' M-Pesa top-ups: one row per top-up, from the quote the payer is shown (KES in whole shillings, the
// asset amount at the rate locked then, and when that quote runs out) through the STK push (the SHA-256 of
// its unguessable callback token, Daraja's CheckoutRequestID) to its end: credited once with the receipt,
// failed with the reason, or expired unconfirmed. `resolve_at` and `queries` schedule the STK queries that
// settle a top-up whose callback was lost or whose process died waiting.
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));
  await db.schema
    .createTable('payer_mpesa_topups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payer_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kes_amount', 'integer', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('asset_amount', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('quote_expires_at', big, (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('callback_token_hash', 'text', (c) => c.unique())
    .addColumn('checkout_request_id', 'text', (c) => c.unique())
    .addColumn('paid_kes', 'integer')
    .addColumn('mpesa_receipt', 'text')
    .addColumn('credited_amount', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('resolve_at', big)
    .addColumn('queries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('confirmed_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payer_mpesa_topups_payer').on('payer_mpesa_topups').columns(['payer_id', 'id']).execute();
  await db.schema.createIndex('payer_mpesa_topups_due').on('payer_mpesa_topups').columns(['status', 'resolve_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payer_mpesa_topups').execute();
}
