// Live card payments through Paystack, refunds sent through the payment's own rail, and disputes. A refund
// keeps why it failed and, while `pending` at its provider, when to ask the provider about it next (and
// how often it was asked); an intent carries its dispute (JSON, null when none); a settlement frozen by a
// dispute keeps the status it had, to return to when the dispute is won.
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));
  await db.schema.alterTable('refunds').addColumn('failure_reason', 'text').execute();
  await db.schema.alterTable('refunds').addColumn('resolve_at', big).execute();
  await db.schema
    .alterTable('refunds')
    .addColumn('queries', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('refunds_due').on('refunds').columns(['status', 'resolve_at']).execute();
  await db.schema.alterTable('payment_intents').addColumn('dispute', 'text').execute();
  await db.schema.alterTable('settlements').addColumn('status_before_dispute', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlements').dropColumn('status_before_dispute').execute();
  await db.schema.alterTable('payment_intents').dropColumn('dispute').execute();
  await db.schema.dropIndex('refunds_due').execute();
  for (const c of ['queries', 'resolve_at', 'failure_reason']) await db.schema.alterTable('refunds').dropColumn(c).execute();
}
