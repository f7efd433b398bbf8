// One POST of one attempt, with undici: a total timeout, no redirects followed (undici's request follows
// none unless asked), keep-alive connections per receiver. Public-only endpoints go through an agent
// whose DNS lookup refuses private and reserved addresses (see url-safety.ts).
import { Agent, request } from 'undici';
import { parseRetryAfter } from './retry-schedule.js';
import { hostOfUrl, isPublicAddress, publicOnlyLookup, staticUrlProblem, type UrlPolicy } from './url-safety.js';
import ipaddr from 'ipaddr.js';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Retry-After of a 429 or 503, in ms. */
  retryAfterMs: number | null;
}

export class WebhookSender {
  private readonly publicAgent: Agent;
  private readonly anyAgent: Agent;

  constructor(private readonly timeoutMs: number) {
    const common = { keepAliveTimeout: 10_000, connections: 256, connect: { timeout: timeoutMs } };
    this.publicAgent = new Agent({ ...common, connect: { ...common.connect, lookup: publicOnlyLookup() } });
    this.anyAgent = new Agent(common);
  }

  async send(
    url: string,
    headers: Record<string, string>,
    body: string,
    policy: UrlPolicy,
    nowMs: () => number,
    stop?: AbortSignal,
  ): Promise<SendResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const problem = staticUrlProblem(url, policy);
    if (problem) return { statusCode: null, error: `url not allowed: ${problem}`, durationMs: took(), retryAfterMs: null };
    // An IP literal is never looked up, so the lookup's check cannot see it: check it here.
    const host = hostOfUrl(new URL(url));
    if (policy === 'public' && ipaddr.isValid(host) && !isPublicAddress(host)) {
      return { statusCode: null, error: `url not allowed: ${host} is not a public address`, durationMs: took(), retryAfterMs: null };
    }
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: policy === 'public' ? this.publicAgent : this.anyAgent,
        signal: stop ? AbortSignal.any([AbortSignal.timeout(this.timeoutMs), stop]) : AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      // The body is not kept: read a little and drop the rest so the connection can be reused.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const retryAfterMs = res.statusCode === 429 || res.statusCode === 503 ? parseRetryAfter(res.headers['retry-after'], nowMs()) : null;
      return { statusCode: res.statusCode, error: null, durationMs: took(), retryAfterMs };
    } catch (err) {
        if (stop?.aborted) return { statusCode: null, error: 'interrupted: the server was shutting down', durationMs: took(), retryAfterMs: null };
      return { statusCode: null, error: describeError(err, this.timeoutMs), durationMs: took(), retryAfterMs: null };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.publicAgent.close(), this.anyAgent.close()]);
  }
}

function describeError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return `timeout: no answer within ${timeoutMs} ms`;
  }
  const code = e.code ?? e.cause?.code;
  if (code === 'EADDRNOTPUBLIC') return `url not allowed: ${e.message ?? e.cause?.message}`;
  const message = (e.message ?? String(err)).slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
