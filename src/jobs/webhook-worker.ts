// The webhook delivery worker (graphile-worker's claiming, svix's attempts): claims due deliveries, POSTs
// each signed event, records every attempt and schedules the next one on the retry ladder. It sleeps until
// woken: by PostgreSQL NOTIFY when an event's transaction commits, by the in-process bell on SQLite, by a
// finished attempt, or by the next due time (retries, and leases of dead workers running out).
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { subscribe, type Subscription } from '../db/notify.js';
import { DELIVERY_CHANNEL } from '../modules/webhooks/index.js';
import {
  WebhookSender,
  claimDueDeliveries,
  deliveryHeaders,
  nextDueAt,
  recordOutcomes,
  retryDelayMs,
  urlPolicy,
  type AttemptOutcome,
  type ClaimedAttempt,
} from '../modules/webhooks/index.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { Db } from '../db/transaction.js';
import { countDelivery } from '../shared/metrics.js';

/** The longest the worker sleeps without looking (another process's work on SQLite, missed signals). */
const POLL_MS = 1000;
/** Claims per query. */
const BATCH = 100;
/** Claims running at once. */
const MAX_CLAIMS = 2;
/** On stop, how long in-flight attempts may finish before they are cut off (and retried later). */
const STOP_GRACE_MS = 2000;

export interface DeliveryWorker {
  stop(): Promise<void>;
}

export interface DeliveryWorkerOptions {
  db: Db;
  /** The pg pool on PostgreSQL (its settings open the LISTEN connection), else null. */
  pool: pg.Pool | null;
  config: Config['webhooks'];
  logger: Logger;
  /** Real time: signatures and retry times are compared with receivers' clocks. */
  clock?: Clock;
  /** On stop, how long attempts in flight may finish before they are cut off and released. */
  stopGraceMs?: number;
}

export async function startDeliveryWorker(opts: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const { db, config, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const sender = new WebhookSender(config.timeoutMs);
  const stopping = new AbortController();
  let stopped = false;
  let dirty = true;
  /** Counts wakes, so that a claim can tell whether anything happened while it ran. */
  let wakes = 0;
  let waiter: (() => void) | null = null;
  let inFlight = 0;
  const attempts = new Set<Promise<void>>();
  const queue: AttemptOutcome[] = [];
  let flushing: Promise<void> | null = null;

  /** Runs the loop again. */
  const poke = () => {
    dirty = true;
    const w = waiter;
    waiter = null;
    w?.();
  };
  /** Something happened that may make deliveries due (a commit, a finished attempt): claim again. */
  const wake = () => {
    wakes++;
    idleUntil = 0;
    poke();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (dirty || stopped) return resolve();
      const timer = setTimeout(() => {
        waiter = null;
        resolve();
      }, ms);
      waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.splice(0, queue.length);
      for (let tries = 1; ; tries++) {
        try {
          await recordOutcomes(db, batch);
          break;
        } catch (err) {
          // Unrecorded attempts are not lost: their leases run out and they are tried again.
          logger.error({ err, attempts: batch.length }, 'recording webhook attempts failed');
          if (tries >= 3) break;
          await new Promise((r) => setTimeout(r, 200 * tries));
        }
      }
    }
    flushing = null;
    wake();
  };
  const record = (o: AttemptOutcome) => {
    queue.push(o);
    flushing ??= flush();
  };

  const attempt = async (a: ClaimedAttempt): Promise<void> => {
    const timestamp = Math.floor(clock.nowMs() / 1000);
    const headers = deliveryHeaders(a.endpoint.secret, a.eventId, timestamp, a.body);
    const policy = urlPolicy(a.endpoint.environment, config.allowPrivate);
    const r = await sender.send(a.endpoint.url, headers, a.body, policy, () => clock.nowMs(), stopping.signal);
    const succeeded = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const finishedAt = clock.nowMs();
    // An attempt cut off because this worker is stopping is released: due again at once, for another worker.
    const released = !succeeded && stopping.signal.aborted;
    const delay = succeeded || gone ? null : released ? 0 : retryDelayMs(a.attemptNumber, config.backoffScale, r.retryAfterMs);
    if (gone) logger.warn({ endpoint: a.endpoint.id, event: a.eventId }, 'webhook endpoint answered 410: disabled');
    countDelivery(succeeded ? 'succeeded' : gone ? 'gone' : released ? 'released' : 'failed');
    record({
      attempt: a,
      succeeded,
      statusCode: r.statusCode,
      error: released
        ? 'released: the worker was shutting down'
        : (r.error ??
          (succeeded ? null : r.statusCode !== null && r.statusCode >= 300 && r.statusCode < 400 ? 'redirect not followed' : null)),
      durationMs: r.durationMs,
      finishedAt,
      nextAttemptAt: delay === null ? null : finishedAt + delay,
      gone,
    });
  };

  const start = (a: ClaimedAttempt) => {
    inFlight++;
    const p = attempt(a)
      .catch((err: unknown) => logger.error({ err, delivery: a.deliveryId }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        inFlight--;
        attempts.delete(p);
        wake();
      });
    attempts.add(p);
  };

  // Claims run beside the attempts, up to MAX_CLAIMS at once: a claim is a transaction of several
  // statements, and waiting for one before asking for the next would leave the receivers idle meanwhile.
  let claiming = 0;
  /** Slots promised to claims that have not answered yet. */
  let reserved = 0;
  const claims = new Set<Promise<void>>();
  /** The last claim found nothing more due: no claim before this time unless something wakes the worker. */
  let idleUntil = 0;
  /** The last claim took all it asked for: more may be due at once. */
  let moreDue = false;

  const claim = (limit: number) => {
    claiming++;
    reserved += limit;
    const seen = wakes;
    const claimedAt = clock.nowMs();
    const p = claimDueDeliveries(db, claimedAt, config.leaseMs, limit)
      .then(async (claimed) => {
        for (const a of claimed) start(a);
        moreDue = claimed.length === limit;
        if (moreDue) {
          idleUntil = 0;
          return;
        }
        // Look again by the next due time, and at least every POLL_MS (work another process may add). What
        // was due when the claim looked and was not claimed belongs to endpoints with all their attempts
        // under way: the end of one of those attempts wakes the worker. A wake while this claim ran (an
        // outcome recorded, a commit) may have made something due that the claim could not see: then look
        // again at once.
        const now = clock.nowMs();
        const due = (await nextDueAt(db)) ?? Infinity;
        const next = due > claimedAt ? Math.min(due, now + POLL_MS) : now + POLL_MS;
        idleUntil = wakes === seen ? next : 0;
      })
      .catch((err: unknown) => {
        if (!stopped) logger.error({ err }, 'claiming webhook deliveries failed');
        moreDue = false;
        idleUntil = clock.nowMs() + POLL_MS;
      })
      .finally(() => {
        claiming--;
        reserved -= limit;
        claims.delete(p);
        poke();
      });
    claims.add(p);
  };

  const loop = async (): Promise<void> => {
    while (!stopped) {
      dirty = false;
      const busy = inFlight + reserved;
      const room = Math.min(config.concurrency - busy, BATCH);
      // Claim in batches: while busy, wait for a quarter of the slots to free up rather than claiming
      // one delivery per finished attempt.
      const hasRoom = room > 0 && (busy === 0 || room >= Math.max(1, Math.floor(config.concurrency / 4)));
      const now = clock.nowMs();
      const wanted = claiming === 0 ? now >= idleUntil : moreDue;
      if (hasRoom && claiming < MAX_CLAIMS && wanted) {
        if (claiming > 0) moreDue = false;
        claim(room);
        continue;
      }
      await sleep(claiming > 0 ? POLL_MS : Math.min(POLL_MS, Math.max(5, idleUntil - now)));
    }
  };

  let subscription: Subscription | null = null;
  try {
    subscription = await subscribe(opts.pool, DELIVERY_CHANNEL, wake, (err) =>
      logger.warn({ err }, 'webhook LISTEN connection lost; reconnecting'),
    );
  } catch (err) {
    logger.warn({ err }, 'webhook LISTEN unavailable; polling');
  }
  const running = loop().catch((err: unknown) => logger.error({ err }, 'webhook worker stopped by an error'));

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      await subscription?.close();
      wake();
      await running;
      await Promise.all([...claims]);
      if (attempts.size > 0) {
        const grace = new Promise<void>((r) => setTimeout(r, opts.stopGraceMs ?? STOP_GRACE_MS).unref());
        await Promise.race([Promise.all([...attempts]), grace]);
        stopping.abort();
        await Promise.all([...attempts]);
      }
      await flushing;
      await sender.close();
    },
  };
}
