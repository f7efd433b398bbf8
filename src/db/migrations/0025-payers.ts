// Payer accounts (the live service balance): payers per environment (email, password, optional TOTP,
// recovery codes, transaction PIN, their locks, status), their server-side sessions, the legs of their balances in the
// ledger (kept beside the merchants' legs, with the same movement rules) and their audit trail.
import { type Kysely } from 'kysely';
import { addSerialPrimaryKey, bigintType, decimalType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  const big = bigintType(engine);
  await db.schema
    .createTable('payers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending', 'text')
    .addColumn('recovery_codes', 'text')
    .addColumn('failed_logins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', big)
    .addColumn('pin_hash', 'text', (c) => c.notNull())
    .addColumn('pin_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pin_locked_until', big)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addUniqueConstraint('payers_environment_email', ['environment', 'email'])
    .execute();
  await db.schema.createIndex('payers_list').on('payers').columns(['environment', 'created_at', 'id']).execute();
  await db.schema
    .createTable('payer_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payer_id', 'text', (c) => c.notNull().references('payers.id'))
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('expires_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payer_sessions_payer').on('payer_sessions').column('payer_id').execute();
  // No foreign key to payers: a leg written beside a merchant's payment must not take a lock on the payer's
  // row (the row a payment from the balance locks first).
  let entries = db.schema.createTable('payer_ledger_entries');
  entries = addSerialPrimaryKey(entries, engine, 'seq');
  await entries
    .addColumn('movement_id', 'text', (c) => c.notNull())
    .addColumn('payer_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('amount', decimalType(engine), (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text')
    .addColumn('refund_id', 'text')
    .addColumn('merchant_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payer_ledger_entries_balance')
    .on('payer_ledger_entries')
    .columns(['payer_id', 'environment', 'asset', 'account'])
    .execute();
  await db.schema.createIndex('payer_ledger_entries_intent').on('payer_ledger_entries').column('payment_intent_id').execute();
  await db.schema
    .createTable('payer_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payer_id', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payer_audit_payer').on('payer_audit').columns(['payer_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payer_audit').execute();
  await db.schema.dropTable('payer_ledger_entries').execute();
  await db.schema.dropTable('payer_sessions').execute();
  await db.schema.dropTable('payers').execute();
}
