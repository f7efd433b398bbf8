// SQLite's checkpointer, on a worker thread of its own (started by sqlite-checkpointer.ts, which explains
// why). It keeps the write-ahead log small:
// - every tick, a PASSIVE checkpoint copies what it can back into the database without blocking anyone;
// - once the log passes `restartBytes`, a RESTART checkpoint (it waits, within the busy timeout, for readers
//   of old frames) makes the next write start the log again from its beginning, and the writer's
//   journal_size_limit cuts the file back. Under sustained writes the writer itself checkpoints between
//   its transactions every few milliseconds (sqlite-writer-thread.ts), since a writer that never pauses
//   would win every time against a checkpoint run from here: the file then stays at a few megabytes;
// - at start (a log left by a crash or a kill -9 included) and after IDLE_MS without a write, a TRUNCATE
//   checkpoint empties the file;
// - one more TRUNCATE when told to stop.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

export interface CheckpointThreadData {
  path: string;
  /** Resolved path of the better-sqlite3 module the thread loads. */
  module: string;
  intervalMs: number;
  /** Log size (bytes) past which a RESTART checkpoint runs. */
  restartBytes: number;
  /** Time without a write after which the log is truncated. */
  idleMs: number;
}

const data = workerData as CheckpointThreadData;
const port = parentPort!;
const Database = createRequire(data.module)(data.module) as typeof BetterSqlite3;
const db = new Database(data.path);
db.pragma('busy_timeout = 2000');
db.pragma('cache_size = -1024');

type Mode = 'PASSIVE' | 'RESTART' | 'TRUNCATE';

/** Runs a checkpoint; answers whether it copied every frame of the log (false when busy). */
function checkpoint(mode: Mode): boolean {
  try {
    const [row] = db.pragma(`wal_checkpoint(${mode})`) as Array<{ busy: number; log: number; checkpointed: number }>;
    return row !== undefined && row.busy === 0 && row.checkpointed === row.log;
  } catch {
    return false; // busy or locked: the next tick will do
  }
}

function walBytes(): number {
  try {
    return statSync(`${data.path}-wal`).size;
  } catch {
    return 0;
  }
}

let truncatedSinceStart = checkpoint('TRUNCATE');
let lastSize = walBytes();
let lastChange = Date.now();
let stopped = false;

function tick(): void {
  if (stopped) return;
  checkpoint('PASSIVE');
  const size = walBytes();
  const now = Date.now();
  if (size !== lastSize) {
    lastSize = size;
    lastChange = now;
  }
  if (size > 0 && (!truncatedSinceStart || now - lastChange >= data.idleMs)) {
    truncatedSinceStart = checkpoint('TRUNCATE') || truncatedSinceStart;
    lastSize = walBytes();
  } else if (size >= data.restartBytes) {
    checkpoint('RESTART');
  }
}

const timer = setInterval(tick, data.intervalMs);

port.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  stopped = true;
  clearInterval(timer);
  checkpoint('TRUNCATE');
  db.close();
  port.postMessage('stopped');
});
