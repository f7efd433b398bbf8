// The database's type (DB), assembled from the row types of every table. Times are integer milliseconds
// since the epoch (bigint on PostgreSQL, INTEGER on SQLite); JSON is stored as text on both engines so one
// set of queries serves both. Each area's tables and their row types live in tables/<area>.ts; this file
// re-exports them all, so code imports every table type from here.
import type { Kysely, Transaction } from 'kysely';
import type { ApiKeysTable, AppsTable, CustomersTable, MerchantsTable } from './tables/merchants.js';
import type {
  PaymentAttemptsTable,
  PaymentIntentsTable,
  PaymentLinkVisitsTable,
  PaymentLinksTable,
  QuotesTable,
  RailPaymentsTable,
  MpesaReversalsTable,
} from './tables/payments.js';
import type { ChainCursorsTable, ChainTransfersTable, WalletAllocationsTable, WalletDepositsTable } from './tables/wallet-and-chain.js';
import type { EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables/events-and-webhooks.js';
import type { LedgerEntriesTable, RefundsTable, SettlementsTable } from './tables/money.js';
import type { PayoutNoncesTable, PayoutTransactionsTable, PayoutsTable } from './tables/payouts.js';
import type { AuditLogTable, ConsoleRecoveryCodesTable, ConsoleSessionsTable, ConsoleUsersTable } from './tables/console.js';
import type { PayerAuditTable, PayerLedgerEntriesTable, PayerSessionsTable, PayersTable } from './tables/payers.js';
import type { PayerChainTopupsTable } from './tables/payer-chain-topups.js';
import type { PayerMpesaTopupsTable } from './tables/payer-mpesa-topups.js';
import type {
  CheckoutSecretsTable,
  IdempotencyKeysTable,
  LeasesTable,
  ReferencePricesTable,
  SandboxClocksTable,
  SystemFlagsTable,
} from './tables/system.js';

export * from './tables/merchants.js';
export * from './tables/payments.js';
export * from './tables/wallet-and-chain.js';
export * from './tables/events-and-webhooks.js';
export * from './tables/money.js';
export * from './tables/console.js';
export * from './tables/payers.js';
export * from './tables/payer-chain-topups.js';
export * from './tables/payer-mpesa-topups.js';
export * from './tables/system.js';
export * from './tables/payouts.js';

/** The database, a transaction on it, or either (a read, or a write that needs no transaction of its own). */
export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
export type Q = Db | Tx;

export interface DB {
  merchants: MerchantsTable;
  apps: AppsTable;
  api_keys: ApiKeysTable;
  customers: CustomersTable;
  idempotency_keys: IdempotencyKeysTable;
  system_flags: SystemFlagsTable;
  quotes: QuotesTable;
  payment_intents: PaymentIntentsTable;
  payment_attempts: PaymentAttemptsTable;
  events: EventsTable;
  sandbox_clocks: SandboxClocksTable;
  payment_links: PaymentLinksTable;
  rail_payments: RailPaymentsTable;
  mpesa_reversals: MpesaReversalsTable;
  wallet_allocations: WalletAllocationsTable;
  wallet_deposits: WalletDepositsTable;
  checkout_secrets: CheckoutSecretsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  settlements: SettlementsTable;
  refunds: RefundsTable;
  ledger_entries: LedgerEntriesTable;
  leases: LeasesTable;
  reference_prices: ReferencePricesTable;
  payment_link_visits: PaymentLinkVisitsTable;
  chain_cursors: ChainCursorsTable;
  chain_transfers: ChainTransfersTable;
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_recovery_codes: ConsoleRecoveryCodesTable;
  audit_log: AuditLogTable;
  payers: PayersTable;
  payer_sessions: PayerSessionsTable;
  payer_ledger_entries: PayerLedgerEntriesTable;
  payer_audit: PayerAuditTable;
  payer_chain_topups: PayerChainTopupsTable;
  payer_mpesa_topups: PayerMpesaTopupsTable;
  payouts: PayoutsTable;
  payout_transactions: PayoutTransactionsTable;
  payout_nonces: PayoutNoncesTable;
}
