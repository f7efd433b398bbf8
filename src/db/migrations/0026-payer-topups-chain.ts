// On-chain top-ups of payer accounts: the payer asks to add an amount on a network and gets the network's
// receiving address with an exact tagged amount. That amount comes from the same allocation space as the
// intents' (wallet_allocations and its partial unique index over the open amounts of an address), so an
// allocation now belongs to an intent or to a top-up, never both: merchant_id and payment_intent_id become
// nullable and payer_topup_id is new, with a check that exactly one owner is set (no foreign key to the
// top-up: its exact amount is chosen, and reserved, before the top-up's row is written in the same
// transaction). SQLite cannot drop a NOT NULL, so there the table is rebuilt (nothing references it) with
// its rows and indexes. The chain watcher records on each transfer the top-up whose amount it matched.
import { sql, type Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';
import { walletAllocationIndexes, walletAllocationsTable } from './0005-checkout-links.js';

const ONE_OWNER = sql`(payment_intent_id is null) <> (payer_topup_id is null)`;

/** SQLite: wallet_allocations again, with owners that may be null (`topups`) or not (undone). */
async function rebuildAllocations(db: Kysely<any>, topups: boolean): Promise<void> {
  let table = walletAllocationsTable(db, 'wallet_allocations_new', { ownersRequired: !topups });
  if (topups) table = table.addColumn('payer_topup_id', 'text').addCheckConstraint('wallet_allocations_one_owner', ONE_OWNER);
  await table.execute();
  const columns = sql.raw(
    'id, merchant_id, environment, payment_intent_id, network, asset, address, amount, state, expires_at, created_at',
  );
  const from = topups ? sql`wallet_allocations` : sql`(select * from wallet_allocations where payer_topup_id is null)`;
  await sql`insert into wallet_allocations_new (${columns}) select ${columns} from ${from}`.execute(db);
  await db.schema.dropTable('wallet_allocations').execute();
  await db.schema.alterTable('wallet_allocations_new').renameTo('wallet_allocations').execute();
  await walletAllocationIndexes(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  const big = bigintType(engine);
  await db.schema
    .createTable('payer_chain_topups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payer_id', 'text', (c) => c.notNull().references('payers.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    // What the payer asked to add, and the exact tagged amount to send (what is credited).
    .addColumn('requested_amount', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    .addColumn('movement_id', 'text')
    .addColumn('expires_at', big, (c) => c.notNull())
    .addColumn('credited_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payer_chain_topups_payer').on('payer_chain_topups').columns(['payer_id', 'created_at']).execute();

  if (engine === 'postgres') {
    await sql`alter table wallet_allocations alter column merchant_id drop not null`.execute(db);
    await sql`alter table wallet_allocations alter column payment_intent_id drop not null`.execute(db);
    await db.schema.alterTable('wallet_allocations').addColumn('payer_topup_id', 'text').execute();
    await db.schema.alterTable('wallet_allocations').addCheckConstraint('wallet_allocations_one_owner', ONE_OWNER).execute();
  } else {
    await rebuildAllocations(db, true);
  }
  await db.schema.alterTable('chain_transfers').addColumn('payer_topup_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chain_transfers').dropColumn('payer_topup_id').execute();
  if (engineOf(db) === 'postgres') {
    await db.deleteFrom('wallet_allocations').where('payer_topup_id', 'is not', null).execute();
    await db.schema.alterTable('wallet_allocations').dropConstraint('wallet_allocations_one_owner').execute();
    await db.schema.alterTable('wallet_allocations').dropColumn('payer_topup_id').execute();
    await sql`alter table wallet_allocations alter column payment_intent_id set not null`.execute(db);
    await sql`alter table wallet_allocations alter column merchant_id set not null`.execute(db);
  } else {
    await rebuildAllocations(db, false);
  }
  await db.schema.dropTable('payer_chain_topups').execute();
}
