// Start-up and shut-down: load config, open and migrate the database, build the app, start listeners.
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config, Role } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { startTimeJobs } from './jobs/time-jobs.js';
import { startDeliveryWorker } from './jobs/webhook-worker.js';
import { startPayoutSenders } from './jobs/payout-senders.js';
import { seedDemoMerchant, type CreatedMerchant } from './modules/merchants/index.js';
import { createConsoleUser } from './modules/console/index.js';
import { forceCloseListeners, startListeners, type Listeners } from './server.js';
import { Lease } from './db/leases.js';
import { startChainWatchers } from './jobs/chain-watchers.js';
import { ratesLeaseMs, startRatesRefresh } from './jobs/rates-refresh.js';
import { logMixin } from './shared/log-context.js';
import { requestLogSerializers } from './http/request-log.js';
import { setMetricsEnabled, setPoolSource, setQueueDepthSource, setRateAgeSource } from './shared/metrics.js';
import { answerClusterMetrics, processMetrics, startMetricsServer } from './http/metrics-server.js';
import { checkEndpointSecrets, countPendingDeliveries } from './modules/webhooks/index.js';
import { openSecretBox } from './secrets-key.js';
import type { RateProvider } from './modules/rates/index.js';
import { buildServices, type BuiltServices } from './services.js';
import { systemClock, type Clock } from './shared/clock.js';
import type { SecretBox } from './shared/secret-box.js';

export interface Running {
  config: Config;
  /** What this process does: `all`, `api` (HTTP only) or `worker` (background work only). */
  role: Role;
  database: Database;
  services: BuiltServices;
  app: FastifyInstance;
  listeners: Listeners;
  clock: Clock;
  logger: Logger;
  /** The demo merchant created on this start (first start on an empty database), else null. */
  demo: DemoSeed | null;
  stop(): Promise<void>;
  /**
   * Graceful shutdown: stops accepting, answers the requests in flight, finishes or releases the webhook
   * attempts in flight and hands back what it holds, within `timeoutMs`; past it, connections are cut.
   * True when everything finished in time.
   */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/** JSON lines with the process's role and pid on every line, and the request id on a request's lines. */
export function createLogger(config: Config, role: Role = config.role): Logger {
  return pino({
    level: config.logLevel,
    base: { pid: process.pid, hostname: hostname(), role },
    mixin: logMixin,
    serializers: requestLogSerializers,
  });
}

export async function startCowrie(
  config: Config,
  opts: {
    clock?: Clock;
    logger?: Logger;
    seedDemo?: boolean;
    /** Background jobs (expiry sweep, ...); on unless false. */
    startJobs?: boolean;
    /** Extra routes or hooks before the listeners start (tests use it to inject faults). */
    configureApp?: (app: FastifyInstance) => void | Promise<void>;
    /** Instead of config.role. */
    role?: Role;
    /** Migrations already applied (a cluster's primary migrates once before it forks). */
    skipMigrations?: boolean;
    /**
     * `serve`: this process serves its metrics on COWRIE_METRICS_PORT (the default); `cluster`: a cluster's
     * primary serves the sum, this process answers it.
     */
    metrics?: 'serve' | 'cluster';
  } = {},
): Promise<Running> {
  const role = opts.role ?? config.role;
  const logger = opts.logger ?? createLogger(config, role);
  const clock = opts.clock ?? systemClock;
  const secrets = openSecretBox(config, logger);
  const database = openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, fixedPool: true });
  // Everything started is stopped in reverse order, also when a later step of the start fails.
  const started: Array<() => Promise<void>> = [() => database.close()];
  const stopAll = async () => {
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    if (!opts.skipMigrations) await migrateToLatest(database, { secrets });
    await checkEndpointSecrets(database.db, secrets);
    await database.fill();
    const demo =
      opts.seedDemo === false
        ? null
        : await seedDemo(database.db, clock, `${new URL(config.sandboxUrl).origin}/console`, config.passwordHashCost);
    setMetricsEnabled(config.metricsPort !== 0);
    // The prices are built below; the metrics listener's /readyz says whether they are stale once they are.
    const late: { rates?: RateProvider } = {};
    if (config.metricsPort !== 0) await startMetrics(config, database, logger, opts.metrics, () => late.rates, started);
    const services = await buildServices(config, database, { logger, clock, secrets });
    started.push(() => services.close());
    late.rates = services.rates;
    if (config.metricsPort !== 0) {
      setRateAgeSource(services.rates.source === 'http' ? () => services.rates.freshness() : null, () => services.clocks.base.nowMs());
    }
    const app = await buildApp(services);
    started.push(() => app.close());
    await opts.configureApp?.(app);
    // The background work runs in `worker` and `all` processes; the clock jobs are claimed through the
    // database (a lease), so that of any number of worker processes one runs them at a time.
    if (role !== 'api' && opts.startJobs !== false) await startBackground(config, database, services, logger, secrets, started);
    const listeners: Listeners =
      role === 'worker' ? { listeners: [], portOf: () => 0, close: async () => {} } : await startListeners(app, config);
    started.push(() => listeners.close());
    let stopping: Promise<void> | null = null;
    const stop = () => {
      stopping ??= stopAll();
      return stopping;
    };
    return {
      config,
      role,
      database,
      services,
      app,
      listeners,
      clock,
      logger,
      demo,
      stop,
      shutdown: (timeoutMs) => shutdownWithin(stop, listeners, logger, timeoutMs),
    };
  } catch (err) {
    await stopAll().catch(() => {});
    throw err;
  }
}

/** The metrics listener (or, in a cluster's process, the answer to its primary) and the gauges it reads. */
async function startMetrics(
  config: Config,
  database: Database,
  logger: Logger,
  mode: 'serve' | 'cluster' | undefined,
  rates: () => RateProvider | undefined,
  started: Array<() => Promise<void>>,
): Promise<void> {
  setQueueDepthSource(() => countPendingDeliveries(database.db));
  const pool = database.pool;
  setPoolSource(() => (pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null));
  if (mode === 'cluster') {
    answerClusterMetrics();
    return;
  }
  const server = await startMetricsServer({ host: config.host, port: config.metricsPort, database, rates, ...processMetrics() });
  started.push(() => server.close());
  logger.info({ port: server.port }, 'metrics listening');
}

/**
 * The background work of `worker` and `all` processes: the clock jobs, webhook delivery, the reference
 * prices' refresh and the chain watchers. What must run once across processes is claimed through the
 * database (a lease per job), so that of any number of worker processes one runs each at a time.
 */
async function startBackground(
  config: Config,
  database: Database,
  services: BuiltServices,
  logger: Logger,
  secrets: SecretBox,
  started: Array<() => Promise<void>>,
): Promise<void> {
  const holder = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  // Renewed at every tick: a holder that dies hands over within five intervals.
  const lease = new Lease(database.db, 'time-jobs', holder, Math.max(2_000, config.jobIntervalMs * 5));
  const jobs = startTimeJobs(services.runTimeJobs, config.jobIntervalMs, logger, lease);
  started.push(() => jobs.stop());
  const worker = await startDeliveryWorker({
    db: database.db,
    pool: database.pool,
    config: config.webhooks,
    logger,
    stopGraceMs: Math.max(100, Math.floor(config.shutdownTimeoutMs / 2)),
    secrets,
  });
  started.push(() => worker.stop());
  if (services.ratesRefresher && config.rates.source === 'http') {
    const refreshMs = config.rates.refreshMs;
    const refreshLease = new Lease(database.db, 'rates-refresh', holder, ratesLeaseMs(refreshMs));
    const refresh = startRatesRefresh(services.ratesRefresher, refreshMs, logger, refreshLease);
    started.push(() => refresh.stop());
  }
  if (services.chainWatchers.length > 0) {
    const pollMs = config.chainWatch.pollMs;
    const leaseOf = (network: string) => new Lease(database.db, `chain-watch:${network}`, holder, Math.max(5_000, pollMs * 5));
    const watchers = startChainWatchers(services.chainWatchers, pollMs, logger, leaseOf);
    started.push(() => watchers.stop());
  }
  if (services.payoutSenders.length > 0) {
    const pollMs = config.chainWatch.pollMs;
    const leaseOf = (network: string) => new Lease(database.db, `payout-send:${network}`, holder, Math.max(5_000, pollMs * 5));
    const senders = startPayoutSenders(services.payoutSenders, pollMs, logger, leaseOf);
    started.push(() => senders.stop());
  }
}

/** Stops within `timeoutMs`, or cuts the connections still open; answers whether it stopped in time. */
async function shutdownWithin(stop: () => Promise<void>, listeners: Listeners, logger: Logger, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  const done = await Promise.race([stop().then(() => true as const), late]);
  clearTimeout(timer);
  if (!done) {
    logger.error({ timeout_ms: timeoutMs }, 'shutdown timed out: cutting the connections still open');
    forceCloseListeners(listeners);
  }
  return done;
}

/** What a first start creates: the demo merchant, its keys, and its console owner (credentials shown once). */
export type DemoSeed = CreatedMerchant & { console: { url: string; email: string; password: string } };

export const DEMO_OWNER_EMAIL = 'owner@demo.cowrie.local';

/** The demo merchant and its console owner, on a first start (an empty database); null otherwise. */
export async function seedDemo(db: Database['db'], clock: Clock, consoleUrl = '', hashCost?: number): Promise<DemoSeed | null> {
  const demo = await seedDemoMerchant(db, clock);
  if (!demo) return null;
  const owner = await createConsoleUser(db, clock, demo.merchant.id, DEMO_OWNER_EMAIL, 'owner', hashCost);
  return { ...demo, console: { url: consoleUrl, email: owner.user.email, password: owner.password } };
}

export function printDemoBanner(demo: DemoSeed, config: Config, write: (s: string) => void): void {
  write(
    [
      '',
      'Cowrie created a demo merchant on this first start. Its keys are shown once; keep them.',
      `  merchant:              ${demo.merchant.id} (${demo.merchant.name})`,
      `  sandbox secret key:    ${demo.keys.test_secret}`,
      `  sandbox publishable:   ${demo.keys.test_publishable}`,
      `  console:               ${new URL(config.sandboxUrl).origin}/console`,
      `  console owner:         ${demo.console.email}`,
      `  console password:      ${demo.console.password}`,
      '',
      'Try it:',
      `  curl ${config.sandboxUrl}/auth/verify -H "Authorization: Bearer ${demo.keys.test_secret}"`,
      '',
    ].join('\n') + '\n',
  );
}
