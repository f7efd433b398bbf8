// Time for all domain code. Nothing in src/modules calls Date.now(): it asks a Clock, so tests and the
// sandbox clock (a per-merchant offset layered on the base clock) can move time.
import type { MerchantScope } from './scope.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
  now(): Date;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  now: () => new Date(),
};

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 5, 1)) {}
  nowMs(): number {
    return this.current;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** A clock running `offsetMs` ahead of another (the sandbox clock of a merchant). */
export function offsetClock(base: Clock, offsetMs: number): Clock {
  if (offsetMs === 0) return base;
  return {
    nowMs: () => base.nowMs() + offsetMs,
    now: () => new Date(base.nowMs() + offsetMs),
  };
}

/** The first instant of year 10000: from there on toISOString writes a six-digit year. */
const YEAR_10000_MS = 253_402_300_800_000;
/** `YYYY-MM-DDTHH:MM:SS.` of a few recent whole seconds (a create writes three date-times, of two seconds). */
const secondPrefixes = new Map<number, string>();

/**
 * ISO 8601 in UTC with milliseconds, the one format of every date-time the API returns: toISOString's text.
 * The date and time of day are formatted once per second (a Date and its formatting per call were about
 * 1.4 us of a create's CPU); only the milliseconds are written per call.
 */
export function isoTime(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
  const milli = ms % 1000;
  const second = ms - milli;
  let prefix = secondPrefixes.get(second);
  if (prefix === undefined) {
    if (secondPrefixes.size >= 16) secondPrefixes.clear();
    prefix = new Date(second).toISOString().slice(0, 20);
    secondPrefixes.set(second, prefix);
  }
  return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** Where each merchant's sandbox offset is kept (the database; src/db/sandbox-offsets.ts). */
export interface SandboxOffsets {
  offsetMs(merchantId: string): Promise<number>;
  /** Moves the offset forward by `deltaMs`; answers the new offset. `commitWith` writes in the same transaction. */
  advance(merchantId: string, deltaMs: number, nowMs: number, commitWith?: CommitsWithOffset): Promise<number>;
}

/** Writes that commit with a clock's advance, given its transaction and the new offset (an idempotent response). */
export interface CommitsWithOffset {
  inTransaction(tx: unknown, offsetMs: number): Promise<void>;
}

/**
 * The one way to read a merchant's clock: live time for live, live time plus the merchant's sandbox offset
 * for sandbox. Live time never moves.
 */
export class MerchantClocks {
  constructor(
    readonly base: Clock,
    private readonly offsets: SandboxOffsets,
  ) {}

  /**
   * The clock of a merchant's environment. A request's scope carries the offset read with its API key
   * (`sandboxOffsetMs`), which saves a query.
   */
  async of(scope: MerchantScope & { sandboxOffsetMs?: number }): Promise<Clock> {
    if (scope.environment === 'live') return this.base;
    const offset = scope.sandboxOffsetMs ?? (await this.offsets.offsetMs(scope.merchantId));
    return offsetClock(this.base, offset);
  }

  /** Now, by the merchant's clock, in ms. */
  async nowMs(scope: MerchantScope & { sandboxOffsetMs?: number }): Promise<number> {
    return (await this.of(scope)).nowMs();
  }

  sandboxOffsetMs(merchantId: string): Promise<number> {
    return this.offsets.offsetMs(merchantId);
  }

  /** Moves a merchant's sandbox time forward; answers the new offset. */
  advanceSandbox(merchantId: string, seconds: number, commitWith?: CommitsWithOffset): Promise<number> {
    return this.offsets.advance(merchantId, seconds * 1000, this.base.nowMs(), commitWith);
  }
}
