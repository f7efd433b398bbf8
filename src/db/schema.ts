// Row types of every table. Times are integer milliseconds since the epoch (bigint on PostgreSQL,
// INTEGER on SQLite); JSON is stored as text on both engines so one set of queries serves both.
import type { Generated, Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { Environment } from '../shared/scope.js';

export interface MerchantsTable {
  id: string;
  name: string;
  /** pending (nothing submitted), in_review (submitted in the console), verified, rejected (with a reason). */
  kyb_status: 'pending' | 'in_review' | 'verified' | 'rejected';
  status: 'active' | 'suspended';
  /** Receiving caps as decimal strings in USD-equivalent fiat value; null means no cap. */
  limit_per_payment: string | null;
  limit_daily: string | null;
  limit_monthly: string | null;
  created_at: number;
  /** The business verification the owner submitted (JSON), why it was refused, when it was submitted. */
  kyb_details: Generated<string | null>;
  kyb_reason: Generated<string | null>;
  kyb_submitted_at: Generated<number | null>;
  /** The transaction PIN for balance refunds in the console (scrypt), wrong ones in a row, and the lock. */
  pin_hash: Generated<string | null>;
  pin_failures: Generated<number>;
  pin_locked_until: Generated<number | null>;
}

export interface AppsTable {
  id: string;
  merchant_id: string;
  name: string;
  is_default: number;
  created_at: number;
}

export type KeyType = 'secret' | 'restricted' | 'publishable';

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  app_id: string;
  environment: Environment;
  type: KeyType;
  /** Hex SHA-256 of the whole key; the plaintext is never stored. */
  key_hash: string;
  /** First characters and last four, to recognise a key in listings. */
  key_hint: string;
  /** JSON array of scope names (empty for secret keys, which hold every scope). */
  scopes: string;
  /** JSON array of addresses and CIDR ranges; empty means any address. */
  allowed_ips: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** The key that replaced this one by rotation. */
  replaced_by: string | null;
}

export interface CustomersTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  email: string | null;
  phone: string | null;
  name: string | null;
  reference: string | null;
  metadata: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  idem_key: string;
  environment: Environment;
  method: string;
  path: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  created_at: number;
  /** While in progress, when the lock lapses (a crashed request); once done, when the record is forgotten. */
  expires_at: number;
}

export interface SystemFlagsTable {
  name: string;
  created_at: number;
}

export interface QuotesTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  source_currency: string;
  target_asset: string;
  side: 'customer_pays' | 'merchant_receives';
  rate: string;
  source_amount: string;
  target_amount: string;
  expires_at: number;
  created_at: number;
}

/** Every status a payment intent can have (the state machine, payment-intents/state-machine.ts, moves it). */
export const INTENT_STATUSES = ['created', 'awaiting_payment', 'confirming', 'paid', 'expired', 'cancelled', 'failed', 'refunded'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

export interface PaymentIntentsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  status: IntentStatus;
  amount: string;
  currency: string;
  settlement_currency: string;
  pay_amount: string;
  /** Fiat price of one unit of the settlement asset, embedded at creation. */
  rate: string;
  description: string | null;
  merchant_reference: string | null;
  /** JSON array of allowed methods. */
  payment_methods: string;
  /** JSON object or null. */
  customer: string | null;
  metadata: string;
  return_url: string | null;
  payment_link: string | null;
  payment_method: string | null;
  /** Asset amount received so far (underpayments add up here). */
  amount_received: string;
  failure_code: string | null;
  /** JSON `{code, message, payment_method}` of the last failed attempt, or null (reset by a success). */
  last_payment_error: string | null;
  /** The provider's reference of the payment that paid it (M-Pesa receipt number, transaction hash). */
  provider_reference: Generated<string | null>;
  expires_at: number;
  created_at: number;
  paid_at: number | null;
  cancelled_at: number | null;
  updated_at: number;
}

export interface PaymentAttemptsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  payment_method: string;
  outcome: string;
  /** Asset amount received by this attempt (0 when nothing arrived). */
  amount: string;
  asset: string;
  /** The attempt's value in USD, for receiving caps. */
  usd_value: string;
  /** True when the attempt counted towards receiving caps (money was accepted). */
  counts_to_caps: number;
  failure_code: string | null;
  created_at: number;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  merchant_id: string;
  environment: Environment;
  type: string;
  api_version: string;
  payment_intent_id: string | null;
  /** The whole event payload as sent to webhooks (JSON). */
  payload: string;
  created_at: number;
  /**
   * The writing transaction's id on PostgreSQL (set by the column default), 0 on SQLite. The event feed
   * orders by (txid, seq) and shows only events of finished transactions (migration 0003).
   */
  txid: Generated<number>;
}

/** enabled; paused (in the console: deliveries wait, unattempted, until resumed); disabled (after a 410 Gone). */
export type WebhookEndpointStatus = 'enabled' | 'paused' | 'disabled';

export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  url: string;
  /** JSON array of event types; empty means every type. */
  events: string;
  /** The signing secret (`cwk_whsec_…`); kept in plain text because every delivery is signed with it. */
  secret: string;
  status: WebhookEndpointStatus;
  /** Why the endpoint was disabled (`gone`: it answered 410). */
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  environment: Environment;
  status: WebhookDeliveryStatus;
  /** Attempts claimed so far (a claim counts even when the worker died before recording its outcome). */
  attempt_count: number;
  /**
   * Real time (ms) when the delivery is next due, or when the current claim's lease runs out; null once
   * the delivery is finished. The worker claims pending rows whose time has come.
   */
  next_attempt_at: number | null;
  /** The attempt id holding the current claim, or null. */
  locked_by: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export type WebhookAttemptOutcome = 'pending' | 'succeeded' | 'failed';

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  attempt_number: number;
  url: string;
  outcome: WebhookAttemptOutcome;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: number;
  finished_at: number | null;
}

export interface SandboxClocksTable {
  merchant_id: string;
  offset_ms: number;
  updated_at: number;
}

export type SettlementStatus = 'pending' | 'available' | 'frozen';

export interface SettlementsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  asset: string;
  /** Asset amount, exactly the asset's decimals. */
  amount: string;
  status: SettlementStatus;
  available_at: number | null;
  settled_at: number;
  created_at: number;
  updated_at: number;
}

export type RefundStatus = 'requested' | 'succeeded' | 'failed';

export interface RefundsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  /** The intent's fiat amount and currency (full refunds only). */
  amount: string;
  currency: string;
  /** What leaves the merchant's balance: the settled asset amount. */
  asset: string;
  asset_amount: string;
  payment_method: string;
  status: RefundStatus;
  reason: string | null;
  return_address: string | null;
  rail_reference: string | null;
  created_at: number;
  updated_at: number;
}

export interface LedgerEntriesTable {
  seq: Generated<number>;
  /** The legs of one movement share it; they sum to zero per asset. */
  movement_id: string;
  merchant_id: string;
  environment: Environment;
  asset: string;
  account: string;
  /** Signed decimal: numeric on PostgreSQL (read as a string), text on SQLite. */
  amount: string;
  kind: string;
  payment_intent_id: string | null;
  settlement_id: string | null;
  refund_id: string | null;
  created_at: number;
}

export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  title: string;
  /** Null when the customer enters the amount. */
  amount: string | null;
  currency: string;
  settlement_currency: string;
  /** Null means no cap. */
  max_payments: number | null;
  expires_at: number | null;
  /** The merchant's metadata, as JSON text exactly as sent. */
  metadata: string;
  /** 1, or 0 once the merchant deactivated it (it mints nothing then). */
  active: Generated<number>;
  created_at: number;
}

/** The intent one visit of a payment link's page minted (one per visit, however often the form is sent). */
export interface PaymentLinkVisitsTable {
  link_id: string;
  visit: string;
  payment_intent_id: string;
  created_at: number;
}

export type RailPaymentState = 'pending' | 'succeeded' | 'failed' | 'declined' | 'cancelled' | 'abandoned';

/** A payment started on a rail that finishes later (an STK push awaiting the phone, a PayPal approval). */
export interface RailPaymentsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  method: string;
  state: RailPaymentState;
  /** JSON: what the rail needs to finish it (the planned sandbox outcome, a masked phone number, ...). */
  details: string;
  /** Why it failed or was declined (card_declined, MERCHANT_LIMIT_EXCEEDED, ...). */
  failure_code: string | null;
  /** When the simulated provider answers (sandbox), or when to ask the provider next (live), ms. */
  resolve_at: number | null;
  /** The provider's id of the request (Daraja's CheckoutRequestID). */
  external_id: Generated<string | null>;
  /** SHA-256 (hex) of the payment's unguessable callback token. */
  callback_token_hash: Generated<string | null>;
  /** The provider's reference of the money received (the M-Pesa receipt number). */
  provider_reference: Generated<string | null>;
  /** How many times the provider was asked about it. */
  queries: Generated<number>;
  created_at: number;
  updated_at: number;
}

export type WalletAllocationState = 'open' | 'credited' | 'released';

/**
 * The exact amount an intent expects on one network. A partial unique index over (environment, network,
 * asset, address, amount) WHERE state = 'open' means two open intents never share all four.
 */
export interface WalletAllocationsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  network: string;
  asset: string;
  address: string;
  amount: string;
  state: WalletAllocationState;
  /** The intent's expiry (merchant clock, ms): an open allocation past it is released for reuse. */
  expires_at: number;
  created_at: number;
}

export interface WalletDepositsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  network: string;
  asset: string;
  address: string;
  amount: string;
  tx_hash: string;
  status: 'credited' | 'unmatched';
  /** Why an unmatched deposit was not credited. */
  reason: string | null;
  payment_intent_id: string | null;
  created_at: number;
  /** Who sent it on chain (live deposits; null for simulated ones). */
  sender: Generated<string | null>;
}

/** How far a network's watcher has read its chain (a block number, a timestamp, signatures: the source's own). */
export interface ChainCursorsTable {
  network: string;
  cursor: string;
  /** The chain's height when last read. */
  head: number | null;
  updated_at: number;
}

/** pending: seen, waiting for its depth; confirmed: at depth, re-read; removed: gone in a reorganisation. */
export type ChainTransferState = 'pending' | 'confirmed' | 'removed';
/** What a confirmed transfer came to. */
export type ChainTransferOutcome = 'credited' | 'duplicate' | 'unmatched' | 'claimed';

/** A transfer of a configured token to a configured address, as the watcher saw it on chain. */
export interface ChainTransfersTable {
  id: string;
  network: string;
  tx_hash: string;
  /** Where in the transaction: the log index (EVM), the transfer's position (TRON, Solana). */
  event_index: string;
  asset: string;
  /** The token contract (EVM, TRON) or mint (Solana). */
  token: string;
  sender: string;
  address: string;
  /** Decimal string in the asset's units. */
  amount: string;
  block_number: number | null;
  state: ChainTransferState;
  outcome: ChainTransferOutcome | null;
  /** Why an unmatched transfer was not credited. */
  reason: string | null;
  /** The merchant and intent whose exact amount it matched (or the operator credited it to). */
  merchant_id: string | null;
  payment_intent_id: string | null;
  /** The intent this transfer's sighting moved to confirming (moved back if it is removed). */
  confirming_intent_id: string | null;
  /** The merchant's deposit record (wallet_deposits), once confirmed and attributed. */
  deposit_id: string | null;
  first_seen_at: number;
  confirmed_at: number | null;
  updated_at: number;
}

export type ConsoleRole = 'owner' | 'developer' | 'viewer';

export interface ConsoleUsersTable {
  id: string;
  merchant_id: string;
  /** Lower-cased. */
  email: string;
  role: ConsoleRole;
  /** scrypt$N$r$p$salt$hash (src/modules/console/passwords.ts). */
  password_hash: string;
  /** Base32 TOTP secret once the second factor is on; the one being set up until it is confirmed. */
  totp_secret: string | null;
  totp_pending: string | null;
  /** Consecutive wrong passwords; five lock the account until locked_until. */
  failed_logins: Generated<number>;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface ConsoleSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  user_id: string;
  /** The session's anti-forgery token, in every form. */
  csrf: string;
  created_at: number;
  /** Idle expiry: renewed by each request. */
  expires_at: number;
}

export interface AuditLogTable {
  id: string;
  merchant_id: string;
  user_id: string | null;
  /** Who: the user's email, or `operator` for the command line. */
  actor: string;
  action: string;
  target: string | null;
  /** JSON. */
  detail: string | null;
  ip: string | null;
  created_at: number;
}

export interface CheckoutSecretsTable {
  id: string;
  /** Hex of 32 random bytes. */
  secret: string;
  created_at: number;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** The database, a transaction on it, or either (a read, or a write that needs no transaction of its own). */
export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
export type Q = Db | Tx;

/** The last good reference price of an asset in a fiat currency (src/modules/rates/). */
export interface ReferencePricesTable {
  asset: string;
  currency: string;
  /** Fiat per one unit of the asset, a decimal string. */
  price: string;
  /** When the fetch that made it finished (ms). */
  updated_at: number;
}

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
  audit_log: AuditLogTable;
}

/** A merchant as every request sees it (the business verification's details are read apart, by the console). */
export type Merchant = Omit<
  Selectable<MerchantsTable>,
  'kyb_details' | 'kyb_reason' | 'kyb_submitted_at' | 'pin_hash' | 'pin_failures' | 'pin_locked_until'
>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type CustomerRow = Selectable<CustomersTable>;
export type PaymentIntentRow = Selectable<PaymentIntentsTable>;
export type QuoteRow = Selectable<QuotesTable>;
export type EventRow = Selectable<EventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
export type SettlementRow = Selectable<SettlementsTable>;
export type RefundRow = Selectable<RefundsTable>;
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
export type PaymentLinkRow = Selectable<PaymentLinksTable>;
export type RailPaymentRow = Selectable<RailPaymentsTable>;
export type WalletAllocationRow = Selectable<WalletAllocationsTable>;
export type WalletDepositRow = Selectable<WalletDepositsTable>;
export type ChainTransferRow = Selectable<ChainTransfersTable>;
export type ConsoleUserRow = Selectable<ConsoleUsersTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
