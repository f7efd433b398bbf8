// SQLite in WAL mode copies the log back into the database ("checkpoint") and fsyncs both. Left to
// itself it does that inside whichever commit crosses the threshold, and better-sqlite3 is synchronous,
// so one request would stall the whole event loop on the fsync. Instead the request connection never
// checkpoints (wal_autocheckpoint = 0) and a worker thread with its own connection runs PASSIVE
// checkpoints, which never block writers, every few hundred milliseconds.
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
// Evaluated as a script or as a module depending on the parent's loader: reach modules without require.
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const Database = process.getBuiltinModule('node:module').createRequire(workerData.module)(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -1024');
let stopped = false;
const timer = setInterval(() => {
  if (stopped) return;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { /* busy: next round */ }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  stopped = true;
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  db.close();
  parentPort.postMessage('stopped');
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, betterSqliteModule: string, intervalMs = 250): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, module: betterSqliteModule, intervalMs },
    // It holds one connection and a timer: keep its heap small.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2, codeRangeSizeMb: 4, stackSizeMb: 1 },
  });
  worker.unref();
  let stopping: Promise<void> | null = null;
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        const done = () => resolve();
        worker.once('exit', done);
        worker.once('message', () => void worker.terminate().then(done, done));
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate().then(done, done), 2000).unref();
      });
      return stopping;
    },
  };
}
