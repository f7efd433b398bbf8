// The live M-Pesa rail: a rail payment keeps the provider's request id (Daraja's CheckoutRequestID), the
// SHA-256 of its unguessable callback token, the provider's reference once paid (the M-Pesa receipt
// number) and how many times it was asked about; the intent shows the provider's reference of the payment
// that paid it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rail_payments').addColumn('external_id', 'text').execute();
  await db.schema.alterTable('rail_payments').addColumn('callback_token_hash', 'text').execute();
  await db.schema.alterTable('rail_payments').addColumn('provider_reference', 'text').execute();
  await db.schema
    .alterTable('rail_payments')
    .addColumn('queries', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('rail_payments_callback_token').unique().on('rail_payments').column('callback_token_hash').execute();
  await db.schema.createIndex('rail_payments_external_id').on('rail_payments').columns(['method', 'external_id']).execute();
  await db.schema.alterTable('payment_intents').addColumn('provider_reference', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_intents').dropColumn('provider_reference').execute();
  await db.schema.dropIndex('rail_payments_external_id').execute();
  await db.schema.dropIndex('rail_payments_callback_token').execute();
  for (const c of ['queries', 'provider_reference', 'callback_token_hash', 'external_id']) {
    await db.schema.alterTable('rail_payments').dropColumn(c).execute();
  }
}
