// The rate limit without a store call per request: each process takes tokens from the store (Redis or
// PostgreSQL, shared by every process; one process's memory with SQLite alone) ahead of need, a lease, and
// spends them locally until the lease runs out or the store's one-second window ends.
//
// - Tokens are counted in the store when they are leased, before they are spent, so the processes
//   together never admit more than the limit in a window. What a lease costs is the other way round: a
//   process may refuse while another still holds unspent tokens of the same window, at most one lease's
//   worth per process (LEASE_SHARE of the limit, and no more than the key spent in the last
//   RECONCILE_MS on that process).
// - A lease is taken only for what is waiting plus that prediction, so a key used slowly, or one whose
//   limit is small (under LEASE_SHARE's reciprocal), is consumed request by request as before, exactly.
// - Once the store answers that the window is spent, every request of that key is refused locally until
//   the window ends (the store cannot give tokens back within a window).
import { batcher } from '../db/batcher.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket refills. */
  resetSeconds: number;
}

/** How far ahead a process leases: what the key spent on it in this many milliseconds. */
export const RECONCILE_MS = 50;
/** The most tokens one lease takes beyond the requests waiting for it: this share of the limit. */
export const LEASE_SHARE = 1 / 16;

/** A consume of `points` in the store: the points consumed in the window after it, and when it ends. */
export type StoreConsume = (key: string, points: number) => Promise<{ consumed: number; msBeforeNext: number }>;

interface KeyState {
  /** Tokens leased and not yet spent. */
  tokens: number;
  /** The points consumed in the store's window after the last lease (every process's, refused ones included). */
  consumed: number;
  /** Of those, the ones within the limit: admitted, or leased to be. */
  counted: number;
  /** When the store's window ends (Date.now() ms, measured from before the store was asked). */
  windowEnd: number;
  /** Requests of this key since `since`, for the next lease's size. */
  arrivals: number;
  since: number;
}

/** The Reset header's figure: whole seconds until the window ends, at least one. */
export function resetSecondsIn(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function refused(limit: number, state: KeyState, now: number): RateDecision {
  return { allowed: false, limit, remaining: 0, resetSeconds: resetSecondsIn(state.windowEnd - now) };
}

function spend(limit: number, state: KeyState, now: number): RateDecision {
  state.tokens--;
  // Unspent leased tokens are not counted as used: across processes the figure is what this one knows.
  const remaining = Math.max(0, limit - (state.counted - state.tokens));
  return { allowed: true, limit, remaining, resetSeconds: resetSecondsIn(state.windowEnd - now) };
}

/** Answers one decision per request; limit and store per key. */
export function leasedLimiter(limitOf: (key: string) => number, store: StoreConsume): (key: string) => Promise<RateDecision> {
  const states = new Map<string, KeyState>();

  // The requests that found no token: those of one key that arrive together lease with one consume.
  const lease = batcher<string, RateDecision>(
    async (keys) => {
      const byKey = new Map<string, number[]>();
      keys.forEach((k, i) => {
        const at = byKey.get(k);
        if (at) at.push(i);
        else byKey.set(k, [i]);
      });
      const out = new Array<RateDecision | Error>(keys.length);
      await Promise.all(
        [...byKey].map(async ([key, at]) => {
          try {
            const decisions = await leaseFor(key, at.length);
            at.forEach((index, n) => (out[index] = decisions[n]!));
          } catch (err) {
            for (const index of at) out[index] = err as Error;
          }
        }),
      );
      return out;
    },
    // One lease at a time per process (the keys waiting meanwhile lease together next): two leases of one
    // key in flight could be answered out of order, and the later window count read first would repeat
    // the `remaining` figures of the earlier one.
    { maxBatchSize: 1000, maxRunning: 1 },
  );

  async function leaseFor(key: string, waiting: number): Promise<RateDecision[]> {
    const limit = limitOf(key);
    const asked = Date.now();
    const state = stateOf(key, asked);
    // The prediction: what the key spent here per RECONCILE_MS since the last lease, within LEASE_SHARE.
    const elapsed = asked - state.since;
    const predicted = elapsed > 0 ? Math.ceil((state.arrivals * RECONCILE_MS) / elapsed) : 0;
    const extra = Math.min(Math.floor(limit * LEASE_SHARE), predicted);
    state.arrivals = 0;
    state.since = asked;
    const points = waiting + extra;
    const r = await store(key, points);
    const before = r.consumed - points;
    const granted = Math.max(0, Math.min(points, limit - before));
    // Tokens of another lease of this window (one asked for meanwhile) are kept; a new window's replace them.
    const sameWindow = state.windowEnd > asked;
    state.tokens = (sameWindow ? state.tokens : 0) + granted;
    state.consumed = sameWindow ? Math.max(state.consumed, r.consumed) : r.consumed;
    state.counted = Math.max(sameWindow ? state.counted : 0, before + granted);
    state.windowEnd = asked + r.msBeforeNext;
    const now = Date.now();
    return Array.from({ length: waiting }, () => (state.tokens > 0 ? spend(limit, state, now) : refused(limit, state, now)));
  }

  function stateOf(key: string, now: number): KeyState {
    let state = states.get(key);
    if (!state) {
      if (states.size >= 10_000) {
        for (const [k, s] of states) if (s.windowEnd <= now) states.delete(k);
      }
      state = { tokens: 0, consumed: 0, counted: 0, windowEnd: 0, arrivals: 0, since: now };
      states.set(key, state);
    }
    return state;
  }

  return (key) => {
    const now = Date.now();
    const state = states.get(key);
    if (state) {
      state.arrivals++;
      if (now < state.windowEnd) {
        if (state.tokens > 0) return Promise.resolve(spend(limitOf(key), state, now));
        if (state.consumed >= limitOf(key)) return Promise.resolve(refused(limitOf(key), state, now));
      }
    }
    return lease(key);
  };
}
