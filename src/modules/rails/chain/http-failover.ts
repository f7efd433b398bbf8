// JSON over HTTP to a provider with several URLs (TronGrid bases, Solana RPC endpoints): each call tries the
// URLs in the order configured and moves to the next on a connection error, a timeout or a 5xx/429 answer. A
// 4xx other than 429 is the caller's problem and is not retried elsewhere. A URL that failed rests for a
// while (it is tried last until then), so a dead first URL costs one timeout, not one per call, and is used
// again once it is back.
import type { ChainNetwork } from '../../../shared/chains.js';
import { ChainRpcError } from './chain-source.js';

export interface JsonAnswer {
  status: number;
  body: unknown;
}

/** How long a failed URL is tried last. */
export const URL_REST_MS = 30_000;

/** The URLs in the order to try now: the configured order, those resting last. */
export function urlOrder(count: number, restingUntil: readonly number[], now: number): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  return [...all.filter((i) => (restingUntil[i] ?? 0) <= now), ...all.filter((i) => (restingUntil[i] ?? 0) > now)];
}

export class FailoverHttp {
  private readonly restingUntil: number[] = [];

  constructor(
    private readonly network: ChainNetwork,
    private readonly urls: readonly string[],
    private readonly timeoutMs: number,
    private readonly headers: Record<string, string> = {},
  ) {}

  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<JsonAnswer> {
    const problems: string[] = [];
    for (const index of urlOrder(this.urls.length, this.restingUntil, Date.now())) {
      const base = this.urls[index]!;
      const failed = (why: string) => {
        problems.push(why);
        this.restingUntil[index] = Date.now() + URL_REST_MS;
      };
      try {
        // undici loads on the first call: a server with no TRON or Solana network never needs it.
        const { request } = await import('undici');
        const res = await request(`${base}${path}`, {
          method,
          headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...this.headers },
          body: body === undefined ? undefined : JSON.stringify(body),
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const text = await res.body.text();
        if (res.statusCode >= 500 || res.statusCode === 429) {
          failed(`${base} answered ${res.statusCode}`);
          continue;
        }
        let parsed: unknown;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          failed(`${base} answered something that is not JSON`);
          continue;
        }
        this.restingUntil[index] = 0;
        return { status: res.statusCode, body: parsed };
      } catch (err) {
        failed(`${base}: ${(err as Error).message}`);
      }
    }
    throw new ChainRpcError(this.network, `every RPC URL failed (${problems.join('; ')})`);
  }
}
