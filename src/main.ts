// Start-up and shut-down: load config, open and migrate the database, build the app, start listeners.
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { startTimeJobs } from './jobs/time-jobs.js';
import { startDeliveryWorker } from './jobs/webhook-worker.js';
import { seedDemoMerchant, type CreatedMerchant } from './modules/merchants/index.js';
import { startListeners, type Listeners } from './server.js';
import { buildServices, type BuiltServices } from './services.js';
import { systemClock, type Clock } from './shared/clock.js';

export interface Running {
  config: Config;
  database: Database;
  services: BuiltServices;
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
  // Everything started is stopped in reverse order, also when a later step of the start fails.
  const started: Array<() => Promise<void>> = [() => database.close()];
  const stopAll = async () => {
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    await migrateToLatest(database);
    await database.fill();
    const demo = opts.seedDemo === false ? null : await seedDemoMerchant(database.db, clock);
    const services = await buildServices(config, database, { logger, clock });
    started.push(() => services.close());
    const app = await buildApp(services);
    started.push(() => app.close());
    await opts.configureApp?.(app);
    const jobs = opts.startJobs === false ? null : startTimeJobs(services.runTimeJobs, config.jobIntervalMs, logger);
    if (jobs) started.push(() => jobs.stop());
    if (opts.startJobs !== false) {
      const worker = await startDeliveryWorker({ db: database.db, pool: database.pool, config: config.webhooks, logger });
      started.push(() => worker.stop());
    }
    const listeners = await startListeners(app, config);
    started.push(() => listeners.close());
    let stopping: Promise<void> | null = null;
    return {
      config,
      database,
      services,
      app,
      listeners,
      clock,
      logger,
      demo,
      stop() {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (err) {
    await stopAll().catch(() => {});
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
