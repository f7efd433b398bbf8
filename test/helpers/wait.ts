// Waiting in tests for something that happens in the background (a worker, a sweep, a watcher, a request in
// flight): poll a condition with a timeout, never a fixed sleep, and say what never happened when it fails.
import { vi } from 'vitest';
import type { Db } from '../../src/db/transaction.js';

export interface WaitOptions {
  /** How long to wait before failing (default 10 s). */
  timeoutMs?: number;
  /** How often to read (default 50 ms). */
  intervalMs?: number;
}

/**
 * Reads `read` every `intervalMs` until `done` holds on what it answers, and answers that value. Fails after
 * `timeoutMs` with `what` and the last value read, so the message says what never came and what came instead.
 */
export async function waitFor<T>(
  what: string,
  read: () => T | Promise<T>,
  done: (value: T) => boolean = Boolean,
  { timeoutMs = 10_000, intervalMs = 50 }: WaitOptions = {},
): Promise<T> {
  let reads = 0;
  try {
    return await vi.waitFor(
      async () => {
        const value = await read();
        reads++;
        if (!done(value)) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${shown(value)}`);
        return value;
      },
      { timeout: timeoutMs, interval: intervalMs },
    );
  } catch (err) {
    // vi.waitFor fails with the callback's last error; none when no read finished in time.
    if (reads === 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; no read finished`, { cause: err });
    throw err;
  }
}

/**
 * Waits until the object `read(id)` answers (an intent, a payout: its API view or its row) has `status`,
 * and answers it.
 */
export function waitForStatus<T extends { status: string }>(
  read: (id: string) => T | Promise<T>,
  id: string,
  status: string,
  opts?: WaitOptions,
): Promise<T> {
  return waitFor(
    `${id} ${status}`,
    () => read(id),
    (x) => x.status === status,
    opts,
  );
}

function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Returns once the background job under lease `name` (the clock jobs' `time-jobs`, a chain watcher's
 * `chain-watch:<network>`) has run `runs` whole times after this call. Each tick renews the lease (real
 * time) and then runs, one tick at a time, so a renewal seen after this call starts a run that has ended by
 * the next renewal. A test that shows a job does nothing (more) waits for this instead of for a while.
 */
export async function jobRuns(db: Db, name: string, runs = 1, opts: WaitOptions = {}): Promise<void> {
  let last: number | null = null;
  let renewals = 0;
  await waitFor(
    `${runs} more whole runs of the job holding the lease ${name}`,
    async () => {
      const row = await db.selectFrom('leases').select('expires_at').where('name', '=', name).executeTakeFirst();
      const at = row === undefined ? null : Number(row.expires_at);
      if (last !== null && at !== null && at !== last) renewals++;
      last = at ?? last;
      return renewals;
    },
    (n) => n > runs,
    { intervalMs: 20, ...opts },
  );
}
