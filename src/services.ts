// The composition root: every service is built here, once per process, from the configuration and the
// open database; whatever is built here is closed here, in reverse order.
import type { Logger } from 'pino';
import { originOf, type Config } from './config.js';
import type { Database } from './db/database.js';
import { sandboxOffsets } from './db/sandbox-offsets.js';
import type { Services } from './deps.js';
import { bucketStoreOf, createRateLimiter, createWindowLimiter, type BucketStore } from './http/rate-limit.js';
import { connectRedis } from './http/redis.js';
import { ConsoleAuth, LOGINS_PER_MINUTE } from './modules/console/index.js';
import { timeJobs } from './jobs/time-jobs.js';
import { CustomerService } from './modules/customers/index.js';
import { GroupCommit } from './db/group-commit.js';
import { IntentService, RailRegistry, checkoutUrlFor, creationBatch } from './modules/payment-intents/index.js';
import { PaymentService } from './modules/payments/index.js';
import { BalanceRail, PayerAccounts, PayerAuth, PayerChainTopups, PayerMpesaTopups, PayerWithdrawals } from './modules/payers/index.js';
import { LINK_MINTS_PER_MINUTE, LinkService, linkUrlFor } from './modules/payment-links/index.js';
import { QuoteService } from './modules/quotes/index.js';
import {
  ChainDeposits,
  ChainRail,
  railNetworkOf,
  ChainWatcher,
  CardRail,
  DarajaClient,
  PaystackClient,
  PaystackWebhooks,
  PaypalClient,
  PaypalRail,
  PaypalWebhooks,
  loadEvmSource,
  MpesaRail,
  MpesaReversals,
  SandboxRail,
  SolanaSource,
  TronSource,
  type ChainRailNetwork,
  type ChainRefundSender,
  type ChainSource,
  type WalletNetwork,
} from './modules/rails/index.js';
import { loadRateTable, RateBook, RateRefresher, type RateProvider } from './modules/rates/index.js';
import { RefundDecisions, RefundService } from './modules/refunds/index.js';
import { buildSenderNetworks, PayoutSender, PayoutService, SenderRegistry } from './modules/payouts/index.js';
import { Decimal } from './shared/money.js';
import { ReportService } from './modules/reports/index.js';
import { SandboxService } from './modules/sandbox/index.js';
import { settlementPolicy } from './modules/settlements/index.js';
import { WebhookService } from './modules/webhooks/index.js';
import { MerchantClocks, systemClock, type Clock } from './shared/clock.js';
import type { SecretBox } from './shared/secret-box.js';

export interface BuiltServices extends Services {
  close(): Promise<void>;
}

export async function buildServices(
  config: Config,
  database: Database,
  /** `secrets` seals webhook endpoint secrets (src/secrets-key.ts says where its keys come from). */
  opts: { logger: Logger; clock?: Clock; secrets: SecretBox },
): Promise<BuiltServices> {
  const db = database.db;
  const clocks = new MerchantClocks(opts.clock ?? systemClock, sandboxOffsets(db));
  const origins = { live: originOf(config.liveUrl), test: originOf(config.sandboxUrl) };
  const checkoutUrl = checkoutUrlFor(origins);
  const { rates, book, ratesRefresher } = referencePrices(config, db, clocks.base, opts.logger);
  const buckets = bucketStoreOf(database.pool, config.redisUrl === null ? null : await connectRedis(config.redisUrl, opts.logger));
  const rateLimiter = createRateLimiter(config.rateLimit, buckets);

  const customers = new CustomerService({ db, clock: clocks.base });
  // The registry is filled below, once the rails are built (they apply outcomes through the payments
  // service); intents ask it which methods can be offered.
  const rails = new RailRegistry();
  const intents = intentServiceOf(config, database, { clocks, rates, checkoutUrl, rails, customers });
  const links = new LinkService({
    db,
    clocks,
    intents,
    linkUrl: linkUrlFor(origins),
    mintLimiter: createWindowLimiter({ points: LINK_MINTS_PER_MINUTE, durationS: 60, prefix: 'link-mint' }, buckets),
  });
  const payments = new PaymentService({ db, clocks, rates, checkoutUrl, settlementPolicy: settlementPolicy(config), links });
  rails.register('test', new SandboxRail(payments, { db, clocks }));
  const providers = providerRails(config, payments, rails, db, clocks, opts.logger);
  const { mpesa } = providers;
  const { refundsTo, ...chains } = await chainsAndPayouts(config, payments, rails, db, clocks, opts.logger);
  const refunds = new RefundService({ db, clocks, checkoutUrl, rails, log: opts.logger });
  const refundDecisions = new RefundDecisions({ db, clocks, checkoutUrl, rails, queryAfterMs: refundAfterMs(config), logger: opts.logger });
  providers.paystackWebhooks?.refundsTo(refundDecisions);
  providers.paypalWebhooks?.refundsTo(refundDecisions);
  mpesa?.reversals?.refundsTo(refundDecisions);
  refundsTo(refundDecisions); // the payout senders tell it when a refund's on-chain send is final
  const areas = signedInAreas(config, payments, database, clocks, rails, buckets, { mpesa, rates, logger: opts.logger }, chains.payouts);
  const runTimeJobs = timeJobs({
    db,
    clocks,
    intents,
    rails,
    refunds: refundDecisions,
    payouts: chains.payouts,
    payerTopups: areas.payerMpesaTopups,
  });
  // Last, so that nothing else can fail after its timer starts: the prices this process starts with.
  await book?.open();

  return {
    config,
    logger: opts.logger,
    database,
    db,
    clocks,
    origins,
    rates,
    ratesRefresher,
    rateLimiter,
    intents,
    payments,
    links,
    refunds,
    refundDecisions,
    ...chains,
    customers,
    quotes: new QuoteService({ db, clocks, rates }),
    reports: new ReportService({ db, clocks, maxRows: config.reportMaxRows }),
    webhooks: new WebhookService({ db, clock: clocks.base, allowPrivate: config.webhooks.allowPrivate, secrets: opts.secrets }),
    rails,
    ...providers,
    chainDeposits: new ChainDeposits({ db, payments, clock: clocks.base }),
    ...areas,
    secrets: opts.secrets,
    runTimeJobs,
    sandbox: new SandboxService({ db, clocks, intents, rails, runTimeJobs }),
    async close() {
      rails.close();
      await book?.close();
      if (buckets.kind === 'redis' && buckets.client.isOpen) await buckets.client.close();
    },
  };
}

/** The live rails of payment providers that are configured (M-Pesa, card, PayPal), registered as live rails. */
function providerRails(
  config: Config,
  payments: PaymentService,
  rails: RailRegistry,
  db: Database['db'],
  clocks: MerchantClocks,
  logger: Logger,
) {
  const mpesa = config.mpesa ? liveMpesa(config.mpesa, payments, db, clocks, logger) : null;
  const { card, paystackWebhooks } = liveCard(config.card, payments, db, clocks, logger);
  const { paypal, paypalWebhooks } = livePaypal(config.paypal, payments, db, clocks, logger);
  for (const rail of [mpesa, card, paypal]) if (rail) rails.register('live', rail);
  return { mpesa, card, paystackWebhooks, paypal, paypalWebhooks };
}

/** When a pending provider refund is first asked about: the first configured provider rail's question delay. */
const refundAfterMs = (config: Config) =>
  (config.card?.queryAfterS ?? config.paypal?.queryAfterS ?? config.mpesa?.queryAfterS ?? 60) * 1000;

/**
 * New intents are group-committed, one group commit per process. While groups commit the next one fills
 * and the event loop keeps serving. SQLite's one writing thread runs one group while the next waits in its
 * queue, so two at once keep it busy; on PostgreSQL each group holds a pooled connection for its round
 * trips, so up to half the pool commits at once (the rest serve reads and the workers).
 */
function intentServiceOf(
  config: Config,
  database: Database,
  deps: Omit<ConstructorParameters<typeof IntentService>[0], 'db' | 'creations'>,
): IntentService {
  const groupsAtOnce = database.engine === 'postgres' ? Math.max(2, Math.floor(config.dbPoolSize / 2)) : 2;
  const creations = new GroupCommit(database.db, creationBatch, { maxGroupSize: 100, maxRunning: groupsAtOnce });
  return new IntentService({ db: database.db, creations, ...deps });
}

/**
 * Reference prices: the rate table, or the live prices kept in the database (the book reads them; the
 * refresher, run by the process holding the refresh lease, fetches them: src/jobs/rates-refresh.ts).
 */
function referencePrices(
  config: Config,
  db: Database['db'],
  clock: Clock,
  logger: Logger,
): { rates: RateProvider; book: RateBook | null; ratesRefresher: RateRefresher | null } {
  if (config.rates.source === 'file') return { rates: loadRateTable(config.rates.file), book: null, ratesRefresher: null };
  const book = new RateBook({ db, clock, maxAgeMs: config.rates.maxAgeMs, logger });
  return { rates: book, book, ratesRefresher: new RateRefresher({ db, book, clock, logger, urls: config.rates.urls }) };
}

/**
 * The signed-in areas: the merchant console's users and sign-in budget per address, and payer accounts
 * (their sign-in and PINs, the operator's view, withdrawals through the payouts, the wallet's sign-in budget
 * and, unless COWRIE_PAYER_ACCOUNTS=off, the live balance rail, offered on intents settling in USDT or USDC,
 * and M-Pesa top-ups when the M-Pesa rail is configured).
 */
function signedInAreas(
  config: Config,
  payments: PaymentService,
  database: Database,
  clocks: MerchantClocks,
  rails: RailRegistry,
  buckets: BucketStore,
  topupsVia: { mpesa: MpesaRail | null; rates: RateProvider; logger: Logger },
  payouts: PayoutService,
) {
  const db = database.db;
  const payerAuth = new PayerAuth({ db, clock: clocks.base, hashCost: config.passwordHashCost });
  if (config.payerAccounts) rails.register('live', new BalanceRail(payments, { db, clocks, auth: payerAuth }));
  return {
    console: new ConsoleAuth({ db, clock: clocks.base, hashCost: config.passwordHashCost }),
    consoleLogins: createWindowLimiter({ points: LOGINS_PER_MINUTE, durationS: 60, prefix: 'console-login' }, buckets),
    payerAuth,
    payerAccounts: new PayerAccounts({ db, clock: clocks.base, auth: payerAuth }),
    walletLogins: createWindowLimiter({ points: LOGINS_PER_MINUTE, durationS: 60, prefix: 'wallet-login' }, buckets),
    payerMpesaTopups: payerTopupsOf(config, topupsVia.mpesa, payerAuth, db, clocks, topupsVia.rates, topupsVia.logger),
    payerWithdrawals: new PayerWithdrawals({ db, auth: payerAuth, payouts }),
  };
}

/** Payers' M-Pesa top-ups, through the M-Pesa rail's Daraja client, when both it and live payer accounts are on. */
function payerTopupsOf(
  config: Config,
  mpesa: MpesaRail | null,
  auth: PayerAuth,
  db: Database['db'],
  clocks: MerchantClocks,
  rates: RateProvider,
  logger: Logger,
): PayerMpesaTopups | null {
  if (!mpesa || !config.mpesa || !config.payerAccounts) return null;
  const { callbackOrigin, queryAfterS } = config.mpesa;
  return new PayerMpesaTopups({
    db,
    clock: clocks.base,
    rates,
    client: mpesa.daraja,
    auth,
    callbackOrigin,
    queryAfterMs: queryAfterS * 1000,
    logger,
  });
}

/** The live M-Pesa rail, through Daraja. */
function liveMpesa(
  mpesa: NonNullable<Config['mpesa']>,
  payments: PaymentService,
  db: Database['db'],
  clocks: MerchantClocks,
  logger: Logger,
) {
  const client = new DarajaClient({
    baseUrl: mpesa.baseUrl,
    consumerKey: mpesa.consumerKey,
    consumerSecret: mpesa.consumerSecret,
    shortcode: mpesa.shortcode,
    passkey: mpesa.passkey,
  });
  const queryAfterMs = mpesa.queryAfterS * 1000;
  const { callbackOrigin, initiator } = mpesa;
  const reversals = initiator ? new MpesaReversals({ db, clocks, client, callbackOrigin, initiator, logger }) : undefined;
  return new MpesaRail(payments, { db, clocks, client, callbackOrigin, queryAfterMs, logger, ...(reversals ? { reversals } : {}) });
}

/** The live card rail through Paystack, and its webhooks' receiver. */
function liveCard(card: Config['card'], payments: PaymentService, db: Database['db'], clocks: MerchantClocks, logger: Logger) {
  if (!card) return { card: null, paystackWebhooks: null };
  const client = new PaystackClient({ baseUrl: card.baseUrl, secretKey: card.secretKey });
  const rail = new CardRail(payments, {
    db,
    clocks,
    client,
    returnOrigin: card.returnOrigin,
    queryAfterMs: card.queryAfterS * 1000,
    logger,
  });
  return { card: rail, paystackWebhooks: new PaystackWebhooks(rail, card.secretKey, logger) };
}

/** The live PayPal rail (Orders v2), and its webhooks' receiver. */
function livePaypal(paypal: Config['paypal'], payments: PaymentService, db: Database['db'], clocks: MerchantClocks, logger: Logger) {
  if (!paypal) return { paypal: null, paypalWebhooks: null };
  const client = new PaypalClient({
    baseUrl: paypal.baseUrl,
    clientId: paypal.clientId,
    clientSecret: paypal.clientSecret,
    nowMs: () => clocks.base.nowMs(),
  });
  const rail = new PaypalRail(payments, {
    db,
    clocks,
    client,
    returnOrigin: paypal.returnOrigin,
    queryAfterMs: paypal.queryAfterS * 1000,
    logger,
  });
  return { paypal: rail, paypalWebhooks: new PaypalWebhooks(rail, client, paypal.webhookId, logger) };
}

/** The live on-chain wallet rail and one watcher per configured network (none: no rail). */
async function liveChains(
  config: Config,
  payments: PaymentService,
  db: Database['db'],
  clocks: MerchantClocks,
  logger: Logger,
  refundSender?: ChainRefundSender,
) {
  const sources = await Promise.all(config.chains.map((chain) => chainSource(config, chain)));
  // Payers' top-ups take their exact amounts on the same addresses; the same watchers credit them.
  const payerTopups = new PayerChainTopups({
    db,
    clock: clocks.base,
    networks: new Map(
      sources.map((source, i) => [config.chains[i]!.network, { address: source.address, tokens: config.chains[i]!.tokens }]),
    ),
  });
  const chainWatchers = sources.map(
    (source) => new ChainWatcher({ db, payments, source, clock: clocks.base, topups: payerTopups, logger }),
  );
  if (sources.length === 0) return { chainWatchers, chainRail: null, payerTopups };
  const networks = new Map<WalletNetwork, ChainRailNetwork>(
    sources.map((source, i) => [config.chains[i]!.network, railNetworkOf(source, config.chains[i]!.tokens, logger)]),
  );
  return {
    chainWatchers,
    chainRail: new ChainRail({ db, clocks, networks, ...(refundSender ? { refunds: refundSender } : {}) }),
    payerTopups,
  };
}

async function chainSource(config: Config, chain: Config['chains'][number]): Promise<ChainSource> {
  const common = {
    rpcUrls: chain.rpcUrls,
    address: chain.address,
    tokens: chain.tokens,
    confirmations: chain.confirmations,
    timeoutMs: config.chainWatch.rpcTimeoutMs,
  };
  switch (chain.network) {
    case 'base':
    case 'polygon':
      return new (await loadEvmSource())({ ...common, network: chain.network, blockRange: config.chainWatch.blockRange });
    case 'tron':
      return new TronSource(common);
    case 'solana':
      return new SolanaSource(common);
  }
}

/** The live wallet rail (registered) with its watchers, and the payouts with their senders, which send its refunds. */
async function chainsAndPayouts(
  config: Config,
  payments: PaymentService,
  rails: RailRegistry,
  db: Database['db'],
  clocks: MerchantClocks,
  logger: Logger,
) {
  const { payouts, payoutSenders, refundSender, refundsTo } = await payoutsOf(config, db, clocks, logger);
  const { chainWatchers, chainRail, payerTopups } = await liveChains(config, payments, db, clocks, logger, refundSender);
  if (chainRail) rails.register('live', chainRail);
  return { chainWatchers, payerTopups, payouts, payoutSenders, refundsTo };
}

/**
 * Payouts, and one sender per network whose payout key is set (run by worker processes under a lease); with
 * senders, the chain rail sends external-wallet refunds through them, and a sender tells the refund
 * decisions (given later, through `refundsTo`) when a refund's send is final.
 */
async function payoutsOf(config: Config, db: Database['db'], clocks: MerchantClocks, logger: Logger) {
  const networks = await buildSenderNetworks(config.chains, { timeoutMs: config.chainWatch.rpcTimeoutMs });
  let decisions: RefundDecisions | null = null;
  const onRefundFinal = (sendId: string) =>
    void decisions
      ?.hint('external_wallet', sendId, null)
      .catch((err: unknown) => logger.warn({ err, send: sendId }, 'refund question failed'));
  const halt = config.testPayoutHalt;
  const payoutSenders = networks.map(
    (target) =>
      new PayoutSender({
        db,
        clock: clocks.base,
        target,
        logger,
        retryMs: config.chainWatch.pollMs,
        onRefundFinal,
        // Tests only: a kill -9 of this process at the step named.
        ...(halt ? { onStep: (step: string) => void (step === halt && process.kill(process.pid, 'SIGKILL')) } : {}),
      }),
  );
  const autoApprove = new Decimal(config.payoutAutoApprove);
  const payouts = new PayoutService({ db, clocks, networks: new SenderRegistry(networks), autoApprove });
  return {
    payouts,
    payoutSenders,
    refundSender: payoutSenders.length > 0 ? payouts : undefined,
    refundsTo: (d: RefundDecisions) => void (decisions = d),
  };
}
