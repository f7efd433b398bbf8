// SQLite in WAL mode copies the log back into the database ("checkpoint") and fsyncs both. Left to
// itself it does that inside whichever commit crosses the threshold, and better-sqlite3 is synchronous,
// so one request would stall the whole event loop on the fsync. Instead the request connection never
// checkpoints (wal_autocheckpoint = 0) and a worker thread with its own connection runs PASSIVE
// checkpoints, which never block writers, every few hundred milliseconds.
import type { CheckpointThreadData } from './sqlite-checkpoint-thread.js';
import { startThread } from './threads.js';

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, betterSqliteModule: string, intervalMs = 250): Checkpointer {
  const workerData: CheckpointThreadData = { path, module: betterSqliteModule, intervalMs };
  const worker = startThread('sqlite-checkpoint-thread', {
    workerData,
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
