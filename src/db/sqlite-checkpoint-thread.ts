// SQLite's checkpointer, on a worker thread of its own (started by sqlite-checkpointer.ts, which explains
// why): PASSIVE checkpoints every few hundred milliseconds, and one more when told to stop.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

export interface CheckpointThreadData {
  path: string;
  /** Resolved path of the better-sqlite3 module the thread loads. */
  module: string;
  intervalMs: number;
}

const data = workerData as CheckpointThreadData;
const port = parentPort!;
const Database = createRequire(data.module)(data.module) as typeof BetterSqlite3;
const db = new Database(data.path);
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -1024');

let stopped = false;
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy: the next round will do
  }
};
const timer = setInterval(() => {
  if (!stopped) checkpoint();
}, data.intervalMs);

port.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  stopped = true;
  clearInterval(timer);
  checkpoint();
  db.close();
  port.postMessage('stopped');
});
