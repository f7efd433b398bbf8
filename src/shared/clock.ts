// Time for all domain code. Nothing in src/modules calls Date.now(): it asks a Clock, so tests and the
// sandbox clock (a per-merchant offset layered on this one) can move time.
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
  return {
    nowMs: () => base.nowMs() + offsetMs,
    now: () => new Date(base.nowMs() + offsetMs),
  };
}

/** ISO 8601 in UTC with milliseconds, the one format of every date-time the API returns. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
