// `cowrie serve`: one process, or with `--processes N` a node:cluster primary that migrates once, seeds the
// demo merchant once, and forks the processes the role asks for (N api processes sharing the listeners'
// ports, plus one worker process when the role is `all`). The primary restarts a process that dies, and on
// SIGTERM or SIGINT passes the signal on and waits for every process to finish its shutdown.
import cluster, { type Worker } from 'node:cluster';
import type { Config, Role } from '../config.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createLogger, printDemoBanner, seedDemo, startCowrie, type Running } from '../main.js';
import { loadSecretsKeys } from '../secrets-key.js';
import { SecretBox } from '../shared/secret-box.js';
import { clusterMetrics, startMetricsServer } from '../http/metrics-server.js';
import { systemClock } from '../shared/clock.js';

export interface ServeIo {
  out: (s: string) => void;
  json: boolean;
  /** Printed once the service is reachable (the URLs of its parts). */
  announce: (running: { config: Config }) => void;
}

/** The environment variable that tells a forked process its role (set by the primary). */
const CHILD_ROLE = 'COWRIE_CLUSTER_ROLE';

/**
 * Waits for SIGTERM or SIGINT. The handlers stay: a second signal (the primary passing one on, a second
 * Ctrl-C) must not kill a process that is shutting down cleanly.
 */
function signalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.on('SIGTERM', () => resolve('SIGTERM'));
    process.on('SIGINT', () => resolve('SIGINT'));
  });
}

/** Runs this process's share of the service until a signal; answers the exit code. */
async function serveOne(config: Config, role: Role, io: ServeIo, child: boolean): Promise<number> {
  const running: Running = await startCowrie(config, {
    role,
    seedDemo: !child,
    skipMigrations: child,
    metrics: child ? 'cluster' : 'serve',
  });
  if (running.demo) {
    if (io.json) io.out(`${JSON.stringify({ demo_merchant: running.demo })}\n`);
    else printDemoBanner(running.demo, running.config, io.out);
  }
  for (const l of running.listeners.listeners) {
    running.logger.info({ environment: l.environment, address: l.address, port: l.port }, 'listening');
  }
  running.logger.info({ role }, 'ready');
  if (child) process.send?.({ cowrie: 'ready' });
  else io.announce(running);
  const signal = await signalled();
  running.logger.info({ signal, timeout_ms: config.shutdownTimeoutMs }, 'shutting down');
  const clean = await running.shutdown(config.shutdownTimeoutMs);
  running.logger.info({ clean }, 'stopped');
  return clean ? 0 : 1;
}

export async function serve(config: Config, io: ServeIo): Promise<number> {
  const childRole = process.env[CHILD_ROLE] as Role | undefined;
  if (cluster.isWorker && childRole) return serveOne(config, childRole, io, true);
  if (config.processes === 1) return serveOne(config, config.role, io, false);
  return primary(config, io);
}

async function primary(config: Config, io: ServeIo): Promise<number> {
  const logger = createLogger(config, config.role);
  // Migrate and seed once, before any process starts.
  const database = openDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    // Loaded now: without its keys no process of the cluster could start.
    await migrateToLatest(database, { secrets: SecretBox.of(loadSecretsKeys(config).keys) });
    const demo = await seedDemo(database.db, systemClock, `${new URL(config.sandboxUrl).origin}/console`, config.passwordHashCost);
    if (demo) {
      if (io.json) io.out(`${JSON.stringify({ demo_merchant: demo })}\n`);
      else printDemoBanner(demo, config, io.out);
    }
  } finally {
    await database.close();
  }
  const roles: Role[] =
    config.role === 'worker'
      ? Array<Role>(config.processes).fill('worker')
      : [...Array<Role>(config.processes).fill('api'), ...(config.role === 'all' ? (['worker'] as Role[]) : [])];
  let stopping = false;
  const live = new Map<Worker, Role>();
  const fork = (role: Role) => {
    const worker = cluster.fork({ [CHILD_ROLE]: role, COWRIE_PROCESSES: '1', COWRIE_ROLE: role });
    live.set(worker, role);
  };
  cluster.on('exit', (worker, code, signal) => {
    const role = live.get(worker);
    live.delete(worker);
    if (stopping || role === undefined) return;
    logger.error({ child_pid: worker.process.pid, role, code, signal }, 'a process died; starting another');
    fork(role);
  });
  // The primary serves the sum of its processes' metrics.
  const metrics =
    config.metricsPort === 0 ? null : await startMetricsServer({ host: config.host, port: config.metricsPort, ...clusterMetrics() });
  let ready = 0;
  const allReady = new Promise<void>((resolve) => {
    cluster.on('message', (_worker, message: unknown) => {
      if ((message as { cowrie?: string })?.cowrie === 'ready' && ++ready === roles.length) resolve();
    });
  });
  for (const role of roles) fork(role);
  logger.info({ processes: roles.length, roles }, 'started processes');
  void allReady.then(() => io.announce({ config }));
  const signal = await signalled();
  stopping = true;
  logger.info({ signal }, 'shutting down every process');
  const exits = [...live.keys()].map((w) => new Promise<number>((resolve) => w.once('exit', (code) => resolve(code ?? 1))));
  for (const w of live.keys()) w.process.kill('SIGTERM');
  const codes = await Promise.all(exits);
  await metrics?.close();
  return codes.every((c) => c === 0) ? 0 : 1;
}
