// The webhook delivery worker (graphile-worker's claiming, svix's attempts): claims due deliveries, POSTs
// each signed event, records every attempt and schedules the next one on the retry ladder. It sleeps until
// woken: by PostgreSQL NOTIFY when an event's transaction commits, by the in-process bell on SQLite, or by
// the next due time (retries, and leases of dead workers running out). Finished attempts are recorded in
// batches, and each record claims, in its own transaction, what those attempts' ends made claimable.
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
import type { SecretBox } from '../shared/secret-box.js';
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
  /** Opens each endpoint's stored (sealed) signing secret. */
  secrets: SecretBox;
}

export async function startDeliveryWorker(opts: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const worker = new WebhookDeliveryWorker(opts);
  await worker.start();
  return worker;
}

class WebhookDeliveryWorker implements DeliveryWorker {
  private readonly clock: Clock;
  private readonly sender: WebhookSender;
  private readonly stopping = new AbortController();
  private stopped = false;
  /** Something happened since the loop last looked: it looks again before sleeping. */
  private dirty = true;
  /** Counts wakes, so that a claim can tell whether anything happened while it ran. */
  private wakes = 0;
  private waiter: (() => void) | null = null;
  private inFlight = 0;
  private readonly attempts = new Set<Promise<void>>();
  private readonly queue: AttemptOutcome[] = [];
  private flushing: Promise<void> | null = null;
  // Claims run beside the attempts, up to MAX_CLAIMS at once: a claim is a transaction of several
  // statements, and waiting for one before asking for the next would leave the receivers idle meanwhile.
  private claiming = 0;
  /** Slots promised to claims that have not answered yet. */
  private reserved = 0;
  private readonly claims = new Set<Promise<void>>();
  /** The last claim found nothing more due: no claim before this time unless something wakes the worker. */
  private idleUntil = 0;
  /** The last claim took all it asked for: more may be due at once. */
  private moreDue = false;
  private subscription: Subscription | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly opts: DeliveryWorkerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.sender = new WebhookSender(opts.config.timeoutMs);
  }

  async start(): Promise<void> {
    const { logger } = this.opts;
    try {
      this.subscription = await subscribe(this.opts.pool, DELIVERY_CHANNEL, this.wake, (err) =>
        logger.warn({ err }, 'webhook LISTEN connection lost; reconnecting'),
      );
    } catch (err) {
      logger.warn({ err }, 'webhook LISTEN unavailable; polling');
    }
    this.running = this.loop().catch((err: unknown) => logger.error({ err }, 'webhook worker stopped by an error'));
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.subscription?.close();
    this.wake();
    await this.running;
    await Promise.all([...this.claims]);
    if (this.attempts.size > 0) {
      const grace = new Promise<void>((r) => setTimeout(r, this.opts.stopGraceMs ?? STOP_GRACE_MS).unref());
      await Promise.race([Promise.all([...this.attempts]), grace]);
      this.stopping.abort();
      await Promise.all([...this.attempts]);
    }
    await this.flushing;
    await this.sender.close();
  }

  /** Runs the loop again. */
  private poke(): void {
    this.dirty = true;
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Something happened that may make deliveries due (a commit, a record that claimed all it asked for): claim again. */
  private readonly wake = (): void => {
    this.wakes++;
    this.idleUntil = 0;
    this.poke();
  };

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.dirty || this.stopped) return resolve();
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    const { concurrency } = this.opts.config;
    while (!this.stopped) {
      this.dirty = false;
      const busy = this.inFlight + this.reserved;
      const room = Math.min(concurrency - busy, BATCH);
      // Claim in batches: while busy, wait for a quarter of the slots to free up rather than claiming
      // one delivery per finished attempt.
      const hasRoom = room > 0 && (busy === 0 || room >= Math.max(1, Math.floor(concurrency / 4)));
      const now = this.clock.nowMs();
      const wanted = this.claiming === 0 ? now >= this.idleUntil : this.moreDue;
      if (hasRoom && this.claiming < MAX_CLAIMS && wanted) {
        if (this.claiming > 0) this.moreDue = false;
        this.claim(room);
        continue;
      }
      await this.sleep(this.claiming > 0 ? POLL_MS : Math.min(POLL_MS, Math.max(5, this.idleUntil - now)));
    }
  }

  private claim(limit: number): void {
    this.claiming++;
    this.reserved += limit;
    const p = this.claimAndStart(limit)
      .catch((err: unknown) => {
        if (!this.stopped) this.opts.logger.error({ err }, 'claiming webhook deliveries failed');
        this.moreDue = false;
        this.idleUntil = this.clock.nowMs() + POLL_MS;
      })
      .finally(() => {
        this.claiming--;
        this.reserved -= limit;
        this.claims.delete(p);
        this.poke();
      });
    this.claims.add(p);
  }

  private async claimAndStart(limit: number): Promise<void> {
    const seen = this.wakes;
    const claimedAt = this.clock.nowMs();
    const claimed = await claimDueDeliveries(this.opts.db, claimedAt, this.opts.config.leaseMs, limit);
    for (const a of claimed) this.launch(a);
    this.moreDue = claimed.length === limit;
    if (this.moreDue) {
      this.idleUntil = 0;
      return;
    }
    // Look again by the next due time, and at least every POLL_MS (work another process may add). What
    // was due when the claim looked and was not claimed belongs to endpoints with all their attempts
    // under way: the end of one of those attempts wakes the worker. A wake while this claim ran (an
    // outcome recorded, a commit) may have made something due that the claim could not see: then look
    // again at once.
    const now = this.clock.nowMs();
    const due = (await nextDueAt(this.opts.db)) ?? Infinity;
    const next = due > claimedAt ? Math.min(due, now + POLL_MS) : now + POLL_MS;
    this.idleUntil = this.wakes === seen ? next : 0;
  }

  /** Starts an attempt beside the others; its end wakes the loop. */
  private launch(a: ClaimedAttempt): void {
    this.inFlight++;
    const p = this.attempt(a)
      .catch((err: unknown) => this.opts.logger.error({ err, delivery: a.deliveryId }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        this.inFlight--;
        this.attempts.delete(p);
        // Its outcome's record claims what its end made claimable (flush); the loop only looks again.
        this.poke();
      });
    this.attempts.add(p);
  }

  /**
   * The endpoint's signing secret, or null when it does not open with this process's keys (altered, or
   * sealed with a key this process lacks): then the attempt is recorded as failed, unsent, and retried on
   * the ladder.
   */
  private openSecret(a: ClaimedAttempt): string | null {
    try {
      return this.opts.secrets.open(a.endpoint.secret, a.endpoint.id);
    } catch (err) {
      this.opts.logger.error({ err, endpoint: a.endpoint.id }, 'webhook endpoint secret does not open: attempt not sent');
      const finishedAt = this.clock.nowMs();
      const delay = retryDelayMs(a.attemptNumber, this.opts.config.backoffScale);
      countDelivery('failed');
      this.record({
        attempt: a,
        succeeded: false,
        statusCode: null,
        error: `not sent: ${(err as Error).message}`,
        durationMs: 0,
        finishedAt,
        nextAttemptAt: delay === null ? null : finishedAt + delay,
        gone: false,
      });
      return null;
    }
  }

  private async attempt(a: ClaimedAttempt): Promise<void> {
    const { config, logger } = this.opts;
    const clock = this.clock;
    const secret = this.openSecret(a);
    if (secret === null) return;
    const timestamp = Math.floor(clock.nowMs() / 1000);
    const headers = deliveryHeaders(secret, a.eventId, timestamp, a.body);
    const policy = urlPolicy(a.endpoint.environment, config.allowPrivate);
    const r = await this.sender.send(a.endpoint.url, headers, a.body, policy, () => clock.nowMs(), this.stopping.signal);
    const succeeded = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const finishedAt = clock.nowMs();
    // An attempt cut off because this worker is stopping is released: due again at once, for another worker.
    const released = !succeeded && this.stopping.signal.aborted;
    const delay = succeeded || gone ? null : released ? 0 : retryDelayMs(a.attemptNumber, config.backoffScale, r.retryAfterMs);
    if (gone) logger.warn({ endpoint: a.endpoint.id, event: a.eventId }, 'webhook endpoint answered 410: disabled');
    countDelivery(succeeded ? 'succeeded' : gone ? 'gone' : released ? 'released' : 'failed');
    this.record({
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
  }

  /** Queues an outcome; the queue is written in batches, one transaction each (the worker's group commit). */
  private record(o: AttemptOutcome): void {
    this.queue.push(o);
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) await this.recordBatch(this.queue.splice(0, this.queue.length));
    this.flushing = null;
    this.poke();
  }

  /**
   * Records a batch of outcomes and, in the same transaction, claims into the free slots: the recorded
   * attempts' places at their endpoints are free from that commit on, and a claim made apart from it would
   * see them still taken. A claim that took all it asked for may have left more due: the loop claims again.
   */
  private async recordBatch(batch: AttemptOutcome[]): Promise<void> {
    const { config, db, logger } = this.opts;
    const limit = this.stopped ? 0 : Math.max(0, Math.min(config.concurrency - this.inFlight - this.reserved, BATCH));
    this.reserved += limit;
    let claimed: ClaimedAttempt[] = [];
    try {
      for (let tries = 1; ; tries++) {
        try {
          claimed = await recordOutcomes(db, batch, { now: this.clock.nowMs(), leaseMs: config.leaseMs, limit });
          break;
        } catch (err) {
          // Unrecorded attempts are not lost: their leases run out and they are tried again.
          logger.error({ err, attempts: batch.length }, 'recording webhook attempts failed');
          if (tries >= 3) break;
          await new Promise((r) => setTimeout(r, 200 * tries));
        }
      }
    } finally {
      this.reserved -= limit;
    }
    // Claimed while the worker was told to stop: not started, due again when their leases run out.
    if (this.stopped) return;
    for (const a of claimed) this.launch(a);
    if (claimed.length === limit) this.wake();
    // A failed attempt's next try: look again by then.
    for (const o of batch) if (o.nextAttemptAt !== null) this.idleUntil = Math.min(this.idleUntil, o.nextAttemptAt);
  }
}
