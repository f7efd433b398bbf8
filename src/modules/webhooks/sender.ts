// One POST of one attempt, with undici: a total timeout, no redirects followed (undici's request follows
// none unless asked), keep-alive connections per receiver. Public-only endpoints go through an agent
// whose DNS lookup refuses private and reserved addresses (see url-safety.ts).
import type { Agent, request as undiciRequest } from 'undici';
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

interface Http {
  request: typeof undiciRequest;
  publicAgent: Agent;
  anyAgent: Agent;
}

export class WebhookSender {
  // undici is loaded with the first delivery: a process that never delivers does not carry it.
  private http: Promise<Http> | null = null;
  /** The attempts under way, aborted together when the worker stops. */
  private readonly running = new Set<AbortController>();
  private stopSignal: AbortSignal | null = null;

  constructor(private readonly timeoutMs: number) {}

  private loadHttp(): Promise<Http> {
    this.http ??= import('undici').then(({ Agent, request }) => {
      const common = { keepAliveTimeout: 10_000, connections: 256, connect: { timeout: this.timeoutMs } };
      return {
        request,
        publicAgent: new Agent({ ...common, connect: { ...common.connect, lookup: publicOnlyLookup() } }),
        anyAgent: new Agent(common),
      };
    });
    return this.http;
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
    const http = await this.loadHttp();
    if (stop && stop !== this.stopSignal) {
      this.stopSignal = stop;
      stop.addEventListener(
        'abort',
        () => {
          for (const c of this.running) c.abort(stop.reason);
        },
        { once: true },
      );
    }
    if (stop?.aborted)
      return { statusCode: null, error: 'interrupted: the server was shutting down', durationMs: took(), retryAfterMs: null };
    // One controller and one timer per attempt for the total timeout (AbortSignal.any and
    // AbortSignal.timeout cost several objects and weak references per call).
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError')),
      this.timeoutMs,
    );
    this.running.add(controller);
    try {
      const res = await http.request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: policy === 'public' ? http.publicAgent : http.anyAgent,
        signal: controller.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      // The body is not kept: read a little and drop the rest so the connection can be reused.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const retryAfterMs = res.statusCode === 429 || res.statusCode === 503 ? parseRetryAfter(res.headers['retry-after'], nowMs()) : null;
      return { statusCode: res.statusCode, error: null, durationMs: took(), retryAfterMs };
    } catch (err) {
      if (stop?.aborted)
        return { statusCode: null, error: 'interrupted: the server was shutting down', durationMs: took(), retryAfterMs: null };
      return { statusCode: null, error: describeError(err, this.timeoutMs), durationMs: took(), retryAfterMs: null };
    } finally {
      clearTimeout(timer);
      this.running.delete(controller);
    }
  }

  async close(): Promise<void> {
    if (!this.http) return;
    const http = await this.http;
    await Promise.all([http.publicAgent.close(), http.anyAgent.close()]);
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
