// SQLite in WAL mode copies the log back into the database ("checkpoint") and fsyncs both. Left to
// itself it does that inside whichever commit crosses the threshold, and better-sqlite3 is synchronous,
// so one request would stall the whole event loop on the fsync. Instead no commit checkpoints
// (wal_autocheckpoint = 0): the writing thread checkpoints between its transactions under load
// (sqlite-writer-thread.ts), and a worker thread with its own connection checkpoints every few hundred
// milliseconds, empties the log's file when writes stop and keeps it small (sqlite-checkpoint-thread.ts).
import type { CheckpointThreadData } from './sqlite-checkpoint-thread.js';
import { startThread } from './threads.js';

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Past this size the log is restarted from its beginning. */
export const WAL_RESTART_BYTES = 16 * 1024 * 1024;
/**
 * What the writer cuts the log's file back to when the log starts again from its beginning: well under
 * WAL_RESTART_BYTES, so that the file's size says again how much the log holds (a file kept at the restart
 * size would ask for a restart at every look).
 */
export const WAL_KEPT_BYTES = 4 * 1024 * 1024;
/** With no write for this long, the log's file is emptied. */
export const WAL_IDLE_MS = 2_000;

export function startCheckpointer(path: string, betterSqliteModule: string, intervalMs = 250): Checkpointer {
  const workerData: CheckpointThreadData = {
    path,
    module: betterSqliteModule,
    intervalMs,
    restartBytes: WAL_RESTART_BYTES,
    idleMs: WAL_IDLE_MS,
  };
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
