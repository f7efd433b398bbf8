// Start-up and shut-down: load config, open and migrate the database, build the app, start listeners.
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { createRateLimiter } from './http/rate-limit.js';
import { seedDemoMerchant, type CreatedMerchant } from './modules/merchants/index.js';
import { applyPaymentOutcome, intentContext } from './modules/payment-intents/index.js';
import { RailRegistry, SandboxRail } from './modules/rails/index.js';
import { loadRateTable } from './modules/rates/index.js';
import { startTimeJobs } from './jobs/time-jobs.js';
import { startDeliveryWorker } from './jobs/webhook-worker.js';
import { systemClock, type Clock } from './shared/clock.js';
import { startListeners, type Listeners } from './server.js';

export interface Running {
  config: Config;
  database: Database;
  app: FastifyInstance;
  listeners: Listeners;
  clock: Clock;
  logger: Logger;
  /** The demo merchant created on this start (first start on an empty database), else null. */
  demo: CreatedMerchant | null;
  stop(): Promise<void>;
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
  } = {},
): Promise<Running> {
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const clock = opts.clock ?? systemClock;
  const database = openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize, fixedPool: true });
  try {
    await migrateToLatest(database);
    await database.fill();
    const demo = opts.seedDemo === false ? null : await seedDemoMerchant(database.db, clock);
    const rateLimiter = await createRateLimiter(config.rateLimit, database.pool);
    const rates = loadRateTable(config.ratesFile);
    const intents = intentContext({ db: database.db, clock, rates, config });
    const rails = new RailRegistry().register('test', new SandboxRail({ report: (scope, r) => applyPaymentOutcome(intents, scope, r) }, { db: database.db, clock }));
    const app = await buildApp({ config, db: database.db, clock, rateLimiter, logger, rates, rails });
    await opts.configureApp?.(app);
    const listeners = await startListeners(app, config);
    const jobs = opts.startJobs === false ? null : startTimeJobs(intents, config.jobIntervalMs, logger);
    const webhookWorker =
      opts.startJobs === false
        ? null
        : await startDeliveryWorker({ db: database.db, pool: database.pool, config: config.webhooks, logger });
    let stopping: Promise<void> | null = null;
    return {
      config,
      database,
      app,
      listeners,
      clock,
      logger,
      demo,
      stop() {
        stopping ??= (async () => {
          await listeners.close();
          await jobs?.stop();
          await webhookWorker?.stop();
          await app.close();
          await database.close();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
}

export function printDemoBanner(demo: CreatedMerchant, config: Config, write: (s: string) => void): void {
  write(
    [
      '',
      'Cowrie created a demo merchant on this first start. Its keys are shown once; keep them.',
      `  merchant:              ${demo.merchant.id} (${demo.merchant.name})`,
      `  sandbox secret key:    ${demo.keys.test_secret}`,
      `  sandbox publishable:   ${demo.keys.test_publishable}`,
      '',
      'Try it:',
      `  curl ${config.sandboxUrl}/auth/verify -H "Authorization: Bearer ${demo.keys.test_secret}"`,
      '',
    ].join('\n') + '\n',
  );
}
