// Waiting in tests for something that happens in the background (a worker, a sweep, a watcher, a request in
// flight): poll a condition with a timeout, never a fixed sleep, and say what never happened when it fails.
import { vi } from 'vitest';

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

function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
