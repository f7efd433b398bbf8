// Payer withdrawals: a payer takes money out of the service balance through the payout sender. A withdrawal
// is a payout row of purpose `payer_withdrawal` that names its payer and no merchant (so `merchant_id` may
// now be null), moving through the same states and sender as a merchant's payout; its hold and release are
// legs of the payer's ledger, which now name the payout too. SQLite cannot drop a NOT NULL, so there the
// payouts table is rebuilt from its own definition (whatever columns it has), with foreign keys checked at
// commit (the migrations run in one transaction): payout_transactions' rows point at it again by then.
// A withdrawal form's one-time key (payer_request_key, unique per payer) makes a form sent twice one withdrawal.
import { sql, type Kysely } from 'kysely';
import { engineOf } from '../dialect.js';

async function rebuildSqlitePayouts(db: Kysely<any>, merchantNullable: boolean): Promise<void> {
  const objects = await sql<{ type: string; sql: string | null }>`
    select type, sql from sqlite_master where tbl_name = 'payouts' and sql is not null`.execute(db);
  const table = objects.rows.find((o) => o.type === 'table')!.sql!;
  const notNull = '"merchant_id" text not null references';
  const nullable = '"merchant_id" text references';
  const next = merchantNullable ? table.replace(notNull, nullable) : table.replace(nullable, notNull);
  await sql`pragma defer_foreign_keys = on`.execute(db);
  await sql.raw(next.replace(/^CREATE TABLE "payouts"/, 'CREATE TABLE "payouts_rebuilt"')).execute(db);
  await sql`insert into payouts_rebuilt select * from payouts`.execute(db);
  await sql`drop table payouts`.execute(db);
  await sql`alter table payouts_rebuilt rename to payouts`.execute(db);
  for (const o of objects.rows) if (o.type === 'index') await sql.raw(o.sql!).execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === 'sqlite') await rebuildSqlitePayouts(db, true);
  else
    await db.schema
      .alterTable('payouts')
      .alterColumn('merchant_id', (c) => c.dropNotNull())
      .execute();
  await db.schema.alterTable('payouts').addColumn('payer_id', 'text').execute();
  await db.schema.createIndex('payouts_payer').on('payouts').columns(['payer_id', 'created_at', 'id']).execute();
  // The withdrawal form's one-time key: the same form sent twice makes one withdrawal.
  await db.schema.alterTable('payouts').addColumn('payer_request_key', 'text').execute();
  await db.schema.createIndex('payouts_payer_request').on('payouts').columns(['payer_id', 'payer_request_key']).unique().execute();
  await db.schema.alterTable('payer_ledger_entries').addColumn('payout_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Withdrawals cannot be kept by the earlier schema (they have no merchant): they go with their legs.
  const withdrawals = db.selectFrom('payouts').select('id').where('purpose', '=', 'payer_withdrawal');
  await db.deleteFrom('payout_transactions').where('payout_id', 'in', withdrawals).execute();
  await db.deleteFrom('payer_ledger_entries').where('payout_id', 'is not', null).execute();
  await db.deleteFrom('payouts').where('purpose', '=', 'payer_withdrawal').execute();
  await db.schema.alterTable('payer_ledger_entries').dropColumn('payout_id').execute();
  await db.schema.dropIndex('payouts_payer_request').execute();
  await db.schema.alterTable('payouts').dropColumn('payer_request_key').execute();
  await db.schema.dropIndex('payouts_payer').execute();
  await db.schema.alterTable('payouts').dropColumn('payer_id').execute();
  if (engineOf(db) === 'sqlite') await rebuildSqlitePayouts(db, false);
  else
    await db.schema
      .alterTable('payouts')
      .alterColumn('merchant_id', (c) => c.setNotNull())
      .execute();
}
