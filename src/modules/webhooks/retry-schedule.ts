// The retry ladder: up to 8 attempts, at once and then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h,
// each wait with ±20 % jitter and multiplied by COWRIE_WEBHOOK_BACKOFF_SCALE. A Retry-After on 429 or 503
// lengthens the next wait, never past the ladder's longest step, and never adds an attempt.
export const MAX_ATTEMPTS = 8;

/** The wait after attempt n (index n - 1), before jitter and scale. */
export const RETRY_WAITS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

export const JITTER = 0.2;

/** Milliseconds to wait after a failed attempt `attempt` (1-based), or null when it was the last. */
export function retryDelayMs(
  attempt: number,
  scale: number,
  retryAfterMs: number | null = null,
  random: () => number = Math.random,
): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_WAITS_MS[attempt - 1]! * scale;
  const jittered = base * (1 - JITTER + 2 * JITTER * random());
  const longest = Math.max(...RETRY_WAITS_MS) * scale;
  if (retryAfterMs !== null && retryAfterMs > jittered) return Math.round(Math.min(retryAfterMs, longest));
  return Math.round(jittered);
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return null;
  const text = v.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}
