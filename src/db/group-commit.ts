// Group commit: the writes of requests that arrive together are committed by one transaction. Items (new
// payment intents, say) submitted while the event loop works through one round of requests, and while
// `maxRunning` earlier groups are still committing, form one group; `toBatch` turns a group into one
// WriteBatch (one INSERT per table, however many items), which runs as one transaction (runAtomic). If that
// transaction fails, each item is written again on its own, so one bad item never fails the others. Under
// load the groups grow by themselves and each commit (a WAL write on SQLite, a WAL flush on PostgreSQL)
// carries many requests; when idle, an item is written at the end of the current event-loop turn.
import { batcher } from './batcher.js';
import { runAtomic, type Db, type WriteBatch } from './transaction.js';

export interface GroupCommitOptions {
  /** The most items one group carries (statement size limits). */
  maxGroupSize: number;
  /** The most groups committing at once. */
  maxRunning: number;
}

export class GroupCommit<T> {
  /** Writes the item with its group; settles when its transaction (the group's, or its own) committed. */
  readonly write: (item: T) => Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly toBatch: (db: Db, items: readonly T[]) => WriteBatch,
    opts: GroupCommitOptions,
  ) {
    this.write = batcher<T, void>((items) => this.commitGroup(items), { maxBatchSize: opts.maxGroupSize, maxRunning: opts.maxRunning });
  }

  private async commitGroup(items: readonly T[]): Promise<Array<void | Error>> {
    try {
      await runAtomic(this.db, this.toBatch(this.db, items));
      return items.map(() => undefined);
    } catch (err) {
      if (items.length === 1) throw err;
      return Promise.all(
        items.map((item) =>
          runAtomic(this.db, this.toBatch(this.db, [item])).then(
            () => undefined,
            (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
          ),
        ),
      );
    }
  }
}
