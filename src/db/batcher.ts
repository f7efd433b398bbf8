// Request coalescing and group commit. Calls made while the event loop works through one round of
// incoming requests are answered together: one query for every API key looked up, one transaction for
// every payment intent created. Built on DataLoader with its cache off, so every call is a fresh read or
// write and nothing is remembered between batches.
//
// With `maxRunning`, a batch that forms while that many are running waits for one of them to finish, and
// every call made meanwhile joins it. Under load the batches grow by themselves, and each commit (a WAL
// write on SQLite, a WAL flush on PostgreSQL) carries many requests; when idle, a call is sent at the end
// of the current event-loop turn.
import DataLoader from 'dataloader';

export interface BatcherOptions {
  /** The most calls one batch carries (statement size limits). */
  maxBatchSize: number;
  /** The most batches running at once (group commit); unlimited when omitted. */
  maxRunning?: number;
}

/**
 * Wraps `run` (keys in, one value or Error per key out, in order) as a function of one key. A rejection
 * of `run` rejects every call of that batch.
 */
export function batcher<K, V>(run: (keys: readonly K[]) => Promise<ArrayLike<V | Error>>, opts: BatcherOptions): (key: K) => Promise<V> {
  const maxRunning = opts.maxRunning ?? Infinity;
  let running = 0;
  const waiting: Array<() => void> = [];
  const loader = new DataLoader<K, V>(
    (keys) => {
      running++;
      const batch = run(keys);
      const done = () => {
        running--;
        waiting.shift()?.();
      };
      batch.then(done, done);
      return batch;
    },
    {
      cache: false,
      maxBatchSize: opts.maxBatchSize,
      batchScheduleFn: (dispatch) => {
        const schedule = () => setImmediate(dispatch);
        if (running < maxRunning) schedule();
        else waiting.push(schedule);
      },
    },
  );
  return (key) => loader.load(key);
}
