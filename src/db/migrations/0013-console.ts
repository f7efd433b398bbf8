// The merchant console: console users (one merchant each, a role, a memory-hard password hash,
// an optional TOTP secret, the count of consecutive wrong passwords and the lock it leads to), server-side
// sessions (the SHA-256 of the cookie's token, the CSRF token, idle expiry), the audit log of what users
// did, and the merchant's business verification (KYB) details, status reason and submission time.
import { type Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));
  await db.schema
    .createTable('console_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending', 'text')
    .addColumn('failed_logins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_users_merchant').on('console_users').column('merchant_id').execute();
  await db.schema
    .createTable('console_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('console_users.id'))
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('expires_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_user').on('console_sessions').column('user_id').execute();
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_list').on('audit_log').columns(['merchant_id', 'created_at', 'id']).execute();
  await db.schema.alterTable('merchants').addColumn('kyb_details', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('kyb_reason', 'text').execute();
  await db.schema.alterTable('merchants').addColumn('kyb_submitted_at', big).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const c of ['kyb_submitted_at', 'kyb_reason', 'kyb_details']) await db.schema.alterTable('merchants').dropColumn(c).execute();
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('console_sessions').execute();
  await db.schema.dropTable('console_users').execute();
}
