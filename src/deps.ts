// What the composition root (src/services.ts) builds and the app (src/app.ts) is given: every service,
// once per process. A leaf: types only.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { Db } from './db/transaction.js';
import type { RateLimiter, WindowLimiter } from './http/rate-limit.js';
import type { RunTimeJobs } from './jobs/time-jobs.js';
import type { ConsoleAuth } from './modules/console/index.js';
import type { CustomerService } from './modules/customers/index.js';
import type { IntentService, RailRegistry } from './modules/payment-intents/index.js';
import type { PaymentService } from './modules/payments/index.js';
import type { PayerAccounts, PayerAuth, PayerChainTopups, PayerMpesaTopups, PayerWithdrawals } from './modules/payers/index.js';
import type { LinkService } from './modules/payment-links/index.js';
import type { QuoteService } from './modules/quotes/index.js';
import type {
  CardRail,
  ChainDeposits,
  ChainWatcher,
  MpesaRail,
  PaypalRail,
  PaypalWebhooks,
  PaystackWebhooks,
} from './modules/rails/index.js';
import type { PayoutSender, PayoutService } from './modules/payouts/index.js';
import type { RateProvider, RateRefresher } from './modules/rates/index.js';
import type { RefundDecisions, RefundService } from './modules/refunds/index.js';
import type { ReportService } from './modules/reports/index.js';
import type { SandboxService } from './modules/sandbox/index.js';
import type { WebhookService } from './modules/webhooks/index.js';
import type { MerchantClocks } from './shared/clock.js';
import type { Environment } from './shared/scope.js';
import type { SecretBox } from './shared/secret-box.js';

export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  db: Db;
  /** Every merchant's clock; `clocks.base` is real time (or a test's clock). */
  clocks: MerchantClocks;
  /** The origin of each environment's base URL: where checkout pages, links and docs live. */
  origins: Record<Environment, string>;
  /** Reference prices: the rate table, or the live prices read from the database every second. */
  rates: RateProvider;
  /** Fetches the live prices (COWRIE_RATES_SOURCE=http), run by a worker process under a lease; else null. */
  ratesRefresher: RateRefresher | null;
  rateLimiter: RateLimiter;
  intents: IntentService;
  payments: PaymentService;
  links: LinkService;
  refunds: RefundService;
  /** The operator's approve and reject of live provider-rail refunds, and the questions about pending ones. */
  refundDecisions: RefundDecisions;
  /** Merchants' payouts: the API's, the console's and the operator's. */
  payouts: PayoutService;
  /** One payout sender per network with a payout key (run by worker processes, one at a time per network). */
  payoutSenders: PayoutSender[];
  customers: CustomerService;
  quotes: QuoteService;
  reports: ReportService;
  webhooks: WebhookService;
  rails: RailRegistry;
  /** The live M-Pesa rail, or null when it is not configured. */
  mpesa: MpesaRail | null;
  /** The live card rail through Paystack and its webhooks, when configured. */
  card: CardRail | null;
  paystackWebhooks: PaystackWebhooks | null;
  /** The live PayPal rail and its webhooks, when configured. */
  paypal: PaypalRail | null;
  paypalWebhooks: PaypalWebhooks | null;
  /** One watcher per configured on-chain network (run by worker processes, one at a time per network). */
  chainWatchers: ChainWatcher[];
  /** The operator's list of on-chain deposits and the claim of an unmatched one. */
  chainDeposits: ChainDeposits;
  /** The merchant console's users, sessions and audit log. */
  console: ConsoleAuth;
  /** Console sign-in attempts per client address (LOGINS_PER_MINUTE a minute), spent by the sign-in route. */
  consoleLogins: WindowLimiter;
  /** Payer accounts (the live service balance): sign-up, sign-in, sessions and transaction PINs. */
  payerAuth: PayerAuth;
  /** Payer accounts as the operator and the wallet page see them: balances, movements, suspension, adjustments. */
  payerAccounts: PayerAccounts;
  /** Payers' on-chain top-ups: asked on the wallet page, credited by the chain watchers. */
  payerTopups: PayerChainTopups;
  /** Payers' withdrawals from the wallet page, sent by the payout senders. */
  payerWithdrawals: PayerWithdrawals;
  /** Wallet sign-in attempts per client address (LOGINS_PER_MINUTE a minute), spent by the wallet's sign-in route. */
  walletLogins: WindowLimiter;
  /** Payers' M-Pesa top-ups at a locked quote: on when the M-Pesa rail and live payer accounts are. */
  payerMpesaTopups: PayerMpesaTopups | null;
  runTimeJobs: RunTimeJobs;
  /** The sandbox's test helpers: the payment driver, the clock and the trigger of sample events. */
  sandbox: SandboxService;
  /** Seals what the server stores and must read back (webhook endpoint secrets, responses that show them). */
  secrets: SecretBox;
}
