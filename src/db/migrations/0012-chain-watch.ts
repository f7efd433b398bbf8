// The live on-chain wallet rail: a cursor per network (how far its watcher has read the chain),
// and every transfer of a configured token to a configured address the watcher has seen: waiting for its
// depth, confirmed, or removed by a reorganisation, with what it came to (credited to an intent, a
// duplicate payment, unmatched, or claimed later by the operator). A transfer is one row whatever happens:
// (network, tx_hash, event_index) is unique. Deposits shown to merchants keep their sender.
import { sql, type Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));
  await db.schema
    .createTable('chain_cursors')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('cursor', 'text', (c) => c.notNull())
    .addColumn('head', big)
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('chain_transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('event_index', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('block_number', big)
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('reason', 'text')
    .addColumn('merchant_id', 'text')
    .addColumn('payment_intent_id', 'text')
    .addColumn('confirming_intent_id', 'text')
    .addColumn('deposit_id', 'text')
    .addColumn('first_seen_at', big, (c) => c.notNull())
    .addColumn('confirmed_at', big)
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chain_transfers_event')
    .unique()
    .on('chain_transfers')
    .columns(['network', 'tx_hash', 'event_index'])
    .execute();
  await db.schema
    .createIndex('chain_transfers_pending')
    .on('chain_transfers')
    .columns(['network', 'state'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema.createIndex('chain_transfers_list').on('chain_transfers').columns(['first_seen_at', 'id']).execute();
  await db.schema.createIndex('chain_transfers_tx').on('chain_transfers').column('tx_hash').execute();
  await db.schema.alterTable('wallet_deposits').addColumn('sender', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('wallet_deposits').dropColumn('sender').execute();
  await db.schema.dropTable('chain_transfers').execute();
  await db.schema.dropTable('chain_cursors').execute();
}
