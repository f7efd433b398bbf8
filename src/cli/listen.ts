// The merchant developer's commands, built on @cowrie/sdk: `cowrie listen` follows the event feed from the
// moment it starts and forwards each new event to a local URL, signed as a webhook delivery with a listen
// secret; `cowrie trigger` fires a sample sandbox event.
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthenticationError, ConnectionError, Cowrie, CowrieError, PermissionError, generateHeaders, type Event } from '#sdk';
import { EVENT_TYPES, type EventType } from '../modules/events/index.js';
import { SECRET_PREFIX } from '../modules/webhooks/index.js';
import { randomBase62 } from '../shared/ids.js';
import { OperatorError } from '../shared/errors.js';

export interface ClientOptions {
  apiKey?: string;
  baseUrl?: string;
}

export interface ListenOptions extends ClientOptions {
  forwardTo: string;
  /** Only these event types are forwarded (all when absent). */
  events?: string[];
  /** Reuse a listen secret instead of making a new one. */
  secret?: string;
  /** How often the feed is asked for new events, in milliseconds. */
  pollMs?: number;
  json?: boolean;
}

export interface ToolIo {
  out: (s: string) => void;
  err: (s: string) => void;
  env: Record<string, string | undefined>;
}

/** How many times one event is offered to the forward URL, and the waits between the tries. */
export const FORWARD_ATTEMPTS = 3;
const FORWARD_WAITS_MS = [1_000, 2_000];
const FORWARD_TIMEOUT_MS = 15_000;
/** Waits between tries to reach a server that went away: 1 s, 2 s, then every 5 s. */
const RECONNECT_WAITS_MS = [1_000, 2_000, 5_000];

/** The SDK client of `--api-key` (or COWRIE_API_KEY) and `--base-url` (default the sandbox URL). */
export function developerClient(opts: ClientOptions, env: Record<string, string | undefined>): Cowrie {
  const apiKey = opts.apiKey ?? env['COWRIE_API_KEY'];
  if (!apiKey)
    throw new OperatorError('Give an API key with --api-key or COWRIE_API_KEY (a cwk_test_ key for the sandbox).', 'api_key_missing');
  const baseUrl = opts.baseUrl ?? env['COWRIE_SANDBOX_URL'] ?? 'http://localhost:4001/v1';
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    throw new OperatorError(`--base-url must be an http(s) URL such as http://localhost:4001/v1, not ${baseUrl}`, 'base_url_invalid');
  try {
    return new Cowrie(apiKey, { baseUrl, maxRetries: 2, timeoutMs: 10_000 });
  } catch (err) {
    throw new OperatorError((err as Error).message, 'api_key_invalid');
  }
}

function checkEventTypes(types: string[] | undefined): EventType[] | null {
  if (!types || types.length === 0) return null;
  for (const t of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(t)) {
      throw new OperatorError(`Unknown event type ${t}; one of: ${EVENT_TYPES.join(', ')}`, 'parameter_invalid');
    }
  }
  return types as EventType[];
}

function clockTime(): string {
  return new Date().toISOString().slice(11, 19);
}

interface Forwarded {
  status: number | null;
  error: string | null;
  attempts: number;
  durationMs: number;
}

/** Offers one event to the URL, signed anew for each try, up to FORWARD_ATTEMPTS times. */
async function forward(url: string, secret: string, event: Event, signal: AbortSignal): Promise<Forwarded> {
  const payload = JSON.stringify(event);
  let last: Forwarded = { status: null, error: null, attempts: 0, durationMs: 0 };
  for (let attempt = 1; attempt <= FORWARD_ATTEMPTS; attempt++) {
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...generateHeaders({ payload, secret, id: event.id }), 'user-agent': 'Cowrie-Listen/1.0' },
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      last = { status: res.status, error: null, attempts: attempt, durationMs: Math.round(performance.now() - started) };
      if (res.status >= 200 && res.status < 300) return last;
    } catch (err) {
      if (signal.aborted) return { ...last, error: 'stopped', attempts: attempt };
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      const error =
        (err as Error).name === 'TimeoutError' ? `no answer within ${FORWARD_TIMEOUT_MS / 1000} s` : (cause ?? (err as Error).message);
      last = { status: null, error, attempts: attempt, durationMs: Math.round(performance.now() - started) };
    }
    if (attempt < FORWARD_ATTEMPTS) {
      try {
        await sleep(FORWARD_WAITS_MS[attempt - 1] ?? 2_000, undefined, { signal });
      } catch {
        return last;
      }
    }
  }
  return last;
}

/** An error that listening cannot outwait: a key that is refused. */
function fatal(err: unknown): boolean {
  return err instanceof AuthenticationError || err instanceof PermissionError || (err instanceof CowrieError && err.statusCode === 400);
}

/** The URL of `--forward-to`, which must be http or https. */
function forwardTarget(forwardTo: string): URL {
  let target: URL;
  try {
    target = new URL(forwardTo);
  } catch {
    throw new OperatorError(`--forward-to must be a URL such as http://localhost:3000/webhooks, not ${forwardTo}`, 'parameter_invalid');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new OperatorError('--forward-to must be an http or https URL', 'parameter_invalid');
  }
  return target;
}

/** The listen secret of `--secret`, or a new one. */
function listenSecret(given: string | undefined): string {
  const secret = given ?? `${SECRET_PREFIX}${randomBase62(32)}`;
  if (!secret.startsWith(SECRET_PREFIX)) throw new OperatorError(`--secret must start with ${SECRET_PREFIX}`, 'parameter_invalid');
  return secret;
}

/** What is printed of one forwarded event: the human line and the JSON line. */
function forwardedLine(event: Event, result: Forwarded): [string, Record<string, unknown>] {
  const answer = result.status !== null ? `[${result.status}]` : `[failed: ${result.error}]`;
  return [
    `${clockTime()}  ${event.type.padEnd(34)} ${event.id}  ${answer} ${result.durationMs} ms${result.attempts > 1 ? ` (${result.attempts} attempts)` : ''}`,
    {
      object: 'forward',
      event: event.id,
      type: event.type,
      status: result.status,
      error: result.error,
      attempts: result.attempts,
      duration_ms: result.durationMs,
    },
  ];
}

/**
 * Runs until `signal` aborts (Ctrl-C), then answers 0; a refused key ends it with 1. A server that goes
 * away is waited for, and the feed is read on from the last event forwarded when it is back.
 */
export async function listen(opts: ListenOptions, io: ToolIo, signal: AbortSignal): Promise<number> {
  const client = developerClient(opts, io.env);
  const target = forwardTarget(opts.forwardTo);
  const only = checkEventTypes(opts.events);
  const secret = listenSecret(opts.secret);
  const pollMs = opts.pollMs ?? 500;
  const say = (human: string, json: Record<string, unknown>) => io.out(opts.json ? `${JSON.stringify(json)}\n` : `${human}\n`);

  let cursor: string | null = null;
  let started = false;
  let lost = 0;
  while (!signal.aborted) {
    try {
      if (!started) {
        // "From the moment it starts": the newest event now is the cursor; only what follows is forwarded.
        const newest = await client.events.list({ limit: 1 }, { signal });
        cursor = newest.data[0]?.id ?? null;
        started = true;
        say(
          [
            `Ready. Forwarding ${only ? only.join(', ') : 'all'} events from ${client.baseUrl} to ${target.href}`,
            `Your listen secret is ${secret} (verify the forwarded events with it; Ctrl-C to stop)`,
          ].join('\n'),
          { object: 'listen', status: 'ready', secret, forward_to: target.href, base_url: client.baseUrl, events: only ?? [] },
        );
      }
      // With a cursor: what follows it, oldest first. Without one (no event existed yet): the newest
      // events, which are all new, put in order.
      const page = await client.events.list(cursor ? { after: cursor, limit: 100 } : { limit: 100 }, { signal });
      if (lost > 0) {
        say(`${clockTime()}  Reconnected to ${client.baseUrl}`, { object: 'listen', status: 'reconnected' });
        lost = 0;
      }
      const events = (cursor ? page.data : [...page.data].reverse()) as Event[];
      for (const event of events) {
        if (signal.aborted) break;
        if (!only || only.includes(event.type as EventType)) {
          const result = await forward(target.href, secret, event, signal);
          if (signal.aborted && result.error === 'stopped') break;
          say(...forwardedLine(event, result));
        }
        cursor = event.id;
      }
      if (!page.has_more || !cursor) await sleep(pollMs, undefined, { signal });
    } catch (err) {
      if (signal.aborted) break;
      if (fatal(err)) {
        io.err(`cowrie: ${(err as Error).message}\n`);
        return 1;
      }
      const wait = RECONNECT_WAITS_MS[Math.min(lost, RECONNECT_WAITS_MS.length - 1)]!;
      if (lost === 0) {
        const why = err instanceof ConnectionError || err instanceof CowrieError ? err.message : String(err);
        say(`${clockTime()}  Lost ${client.baseUrl} (${why}); trying again until it is back`, {
          object: 'listen',
          status: 'lost',
          error: why,
        });
      }
      lost++;
      try {
        await sleep(wait, undefined, { signal });
      } catch {
        break;
      }
    }
  }
  say('Stopped.', { object: 'listen', status: 'stopped' });
  return 0;
}

/** `cowrie trigger TYPE`: the sandbox trigger, through the SDK. */
export async function trigger(type: string, opts: ClientOptions & { json?: boolean }, io: ToolIo): Promise<void> {
  const client = developerClient(opts, io.env);
  checkEventTypes([type]);
  let sent;
  try {
    sent = await client.sandbox.trigger(type as EventType);
  } catch (err) {
    if (err instanceof CowrieError) throw new OperatorError(err.message, err.code);
    throw err;
  }
  io.out(
    opts.json
      ? `${JSON.stringify(sent, null, 2)}\n`
      : `Triggered ${sent.type}: event ${sent.event} recorded and sent to your subscribed sandbox endpoints.\n`,
  );
}
