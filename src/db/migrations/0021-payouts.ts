// Payouts: the merchant takes its settled stablecoins out to an address of its own, and external-wallet
// refunds are sent on-chain by the same sender. A payout row is what the merchant asked for (its hold on
// the available balance is in the ledger, whose legs now name the payout); a payout transaction is one
// signed transfer of it (a first attempt, an EVM replacement at the same nonce, or a TRON/Solana transfer
// signed anew after the last one expired), recorded with its hash and raw bytes before it is broadcast.
// The sender keeps each EVM network's next nonce here.
import type { Kysely } from 'kysely';
import { addSerialPrimaryKey, bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  const big = bigintType(engine);
  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    // `payout` (the merchant's, in the API) or `refund` (an external-wallet refund's send, not listed).
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('refund_id', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('approved_at', big)
    // Sandbox payouts: when (sandbox time) a sent one is paid.
    .addColumn('resolve_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('sent_at', big)
    .addColumn('paid_at', big)
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payouts_list').on('payouts').columns(['merchant_id', 'environment', 'created_at', 'id']).execute();
  await db.schema.createIndex('payouts_work').on('payouts').columns(['environment', 'network', 'status']).execute();
  await db.schema.createIndex('payouts_refund').on('payouts').column('refund_id').unique().execute();

  let txs = db.schema.createTable('payout_transactions');
  txs = addSerialPrimaryKey(txs, engine, 'seq');
  await txs
    .addColumn('payout_id', 'text', (c) => c.notNull().references('payouts.id'))
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('nonce', big)
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('valid_until', big)
    // signed (recorded, maybe not broadcast yet), broadcast, landed (the one that counts), dropped
    .addColumn('state', 'text', (c) => c.notNull())
    // EVM: the chain's head when it was broadcast (a replacement is due REPLACE_AFTER_BLOCKS later).
    .addColumn('broadcast_block', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payout_transactions_payout').on('payout_transactions').columns(['payout_id', 'attempt']).unique().execute();
  await db.schema.createIndex('payout_transactions_hash').on('payout_transactions').columns(['network', 'tx_hash']).unique().execute();

  await db.schema
    .createTable('payout_nonces')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('next_nonce', big, (c) => c.notNull())
    .execute();

  await db.schema.alterTable('ledger_entries').addColumn('payout_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ledger_entries').dropColumn('payout_id').execute();
  await db.schema.dropTable('payout_nonces').execute();
  await db.schema.dropTable('payout_transactions').execute();
  await db.schema.dropTable('payouts').execute();
}
