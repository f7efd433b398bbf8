// Request coalescing and group commit. Calls made while the event loop works through one round of
// incoming requests are answered together: one query for every API key looked up, one transaction for
// every payment intent created. Built on DataLoader with its cache off, so every call is a fresh read or
// write and nothing is remembered between batches.
//
// A `serial` batcher runs one batch at a time: a batch that forms while another is running waits for it,
// and every call made meanwhile joins the waiting batch. Under load the batches grow by themselves, and
// each commit (a WAL write on SQLite, a WAL flush on PostgreSQL) carries many requests; when idle, a call
// is sent at the end of the current event-loop turn.
import DataLoader from 'dataloader';

export interface BatcherOptions {
  /** The most calls one batch carries (statement size limits). */
  maxBatchSize: number;
  /** One batch at a time (group commit). */
  serial?: boolean;
}

/**
 * Wraps `run` (keys in, one value or Error per key out, in order) as a function of one key. A rejection
 * of `run` rejects every call of that batch.
 */
export function batcher<K, V>(run: (keys: readonly K[]) => Promise<ArrayLike<V | Error>>, opts: BatcherOptions): (key: K) => Promise<V> {
  let running: Promise<unknown> | null = null;
  const loader = new DataLoader<K, V>(
    (keys) => {
      const batch = run(keys);
      if (opts.serial) {
        running = batch;
        const done = () => {
          if (running === batch) running = null;
        };
        batch.then(done, done);
      }
      return batch;
    },
    {
      cache: false,
      maxBatchSize: opts.maxBatchSize,
      batchScheduleFn: (dispatch) => {
        const schedule = () => setImmediate(dispatch);
        if (running) running.then(schedule, schedule);
        else schedule();
      },
    },
  );
  return (key) => loader.load(key);
}
