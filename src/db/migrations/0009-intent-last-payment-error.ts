// A failed pay attempt no longer ends the payment: the intent keeps the last attempt's failure,
// `{code, message, payment_method}` as JSON, until a later attempt succeeds.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_intents').addColumn('last_payment_error', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_intents').dropColumn('last_payment_error').execute();
}
