// The only SQL of the delivery worker. A claim is one short transaction (mark due rows as taken with a
// lease, open an attempt row for each); the HTTP call happens after it commits; the outcomes are written
// in another short transaction. No transaction is ever open across a call to a receiver.
import type { Kysely, Transaction } from 'kysely';
import { engineOf, skipLocked } from '../../db/dialect.js';
import type { DB, WebhookDeliveryStatus, WebhookEndpointRow } from '../../db/schema.js';
import { newId, randomBase62 } from '../../shared/ids.js';

type Q = Kysely<DB> | Transaction<DB>;

export interface ClaimedAttempt {
  deliveryId: string;
  eventId: string;
  attemptId: string;
  attemptNumber: number;
  /** The claim's token (deliveries.locked_by). */
  token: string;
  startedAt: number;
  endpoint: Pick<WebhookEndpointRow, 'id' | 'url' | 'secret' | 'environment'>;
  /** The event's JSON exactly as stored: the body of every attempt. */
  body: string;
}

/**
 * Claims up to `limit` due deliveries: their next_attempt_at becomes the lease's end, so a claim of a
 * worker that dies is due again when the lease runs out. PostgreSQL skips rows another worker is claiming
 * (FOR UPDATE SKIP LOCKED); on SQLite the single UPDATE is exclusive. Deliveries whose endpoint was
 * deleted or disabled meanwhile are cancelled here instead.
 */
export async function claimDueDeliveries(db: Kysely<DB>, now: number, leaseMs: number, limit: number): Promise<ClaimedAttempt[]> {
  const engine = engineOf(db);
  const token = `clm_${randomBase62(16)}`;
  return db.transaction().execute(async (trx) => {
    const due = skipLocked(
      engine,
      trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit),
    );
    const claimed = await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1), next_attempt_at: now + leaseMs, locked_by: token, updated_at: now }))
      .where('id', 'in', due)
      .where('status', '=', 'pending')
      .returning(['id', 'event_id', 'endpoint_id', 'attempt_count'])
      .execute();
    if (claimed.length === 0) return [];
    const endpoints = new Map(
      (
        await trx
          .selectFrom('webhook_endpoints')
          .select(['id', 'url', 'secret', 'environment', 'status', 'deleted_at'])
          .where('id', 'in', [...new Set(claimed.map((c) => c.endpoint_id))])
          .execute()
      ).map((e) => [e.id, e]),
    );
    const bodies = new Map(
      (
        await trx
          .selectFrom('events')
          .select(['id', 'payload'])
          .where('id', 'in', [...new Set(claimed.map((c) => c.event_id))])
          .execute()
      ).map((e) => [e.id, e.payload]),
    );
    const out: ClaimedAttempt[] = [];
    const cancelled: string[] = [];
    for (const c of claimed) {
      const endpoint = endpoints.get(c.endpoint_id);
      const body = bodies.get(c.event_id);
      if (!endpoint || endpoint.status !== 'enabled' || endpoint.deleted_at !== null || body === undefined) {
        cancelled.push(c.id);
        continue;
      }
      out.push({
        deliveryId: c.id,
        eventId: c.event_id,
        attemptId: newId('webhook_attempt'),
        attemptNumber: Number(c.attempt_count),
        token,
        startedAt: now,
        endpoint: { id: endpoint.id, url: endpoint.url, secret: endpoint.secret, environment: endpoint.environment },
        body,
      });
    }
    if (cancelled.length > 0) {
      await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({ status: 'cancelled', attempt_count: eb('attempt_count', '-', 1), next_attempt_at: null, locked_by: null, completed_at: now }))
        .where('id', 'in', cancelled)
        .execute();
    }
    if (out.length > 0) {
      await trx
        .insertInto('webhook_attempts')
        .values(
          out.map((a) => ({
            id: a.attemptId,
            delivery_id: a.deliveryId,
            event_id: a.eventId,
            endpoint_id: a.endpoint.id,
            attempt_number: a.attemptNumber,
            url: a.endpoint.url,
            outcome: 'pending' as const,
            status_code: null,
            error: null,
            duration_ms: null,
            started_at: now,
            finished_at: null,
          })),
        )
        .execute();
    }
    return out;
  });
}

export interface AttemptOutcome {
  attempt: ClaimedAttempt;
  succeeded: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  finishedAt: number;
  /** When to try again (real ms), or null: the delivery is finished. */
  nextAttemptAt: number | null;
  /** The receiver answered 410: disable the endpoint. */
  gone: boolean;
}

/** Records finished attempts, all in one short transaction (the worker's group commit). */
export async function recordOutcomes(db: Kysely<DB>, outcomes: readonly AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const o of outcomes) {
      await trx
        .updateTable('webhook_attempts')
        .set({
          outcome: o.succeeded ? 'succeeded' : 'failed',
          status_code: o.statusCode,
          error: o.error,
          duration_ms: o.durationMs,
          finished_at: o.finishedAt,
        })
        .where('id', '=', o.attempt.attemptId)
        .execute();
      const status: WebhookDeliveryStatus = o.succeeded ? 'succeeded' : o.nextAttemptAt === null ? 'failed' : 'pending';
      // Only the claim's holder moves the delivery on (a claim whose lease ran out was taken over).
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status,
          next_attempt_at: status === 'pending' ? o.nextAttemptAt : null,
          locked_by: null,
          last_status_code: o.statusCode,
          last_error: o.error,
          last_attempt_at: o.attempt.startedAt,
          updated_at: o.finishedAt,
          completed_at: status === 'pending' ? null : o.finishedAt,
        })
        .where('id', '=', o.attempt.deliveryId)
        .where('locked_by', '=', o.attempt.token)
        .where('attempt_count', '=', o.attempt.attemptNumber)
        .where('status', '=', 'pending')
        .execute();
      if (o.gone) await disableEndpoint(trx, o.attempt.endpoint.id, 'gone', o.finishedAt);
    }
  });
}

/** Disables an endpoint and cancels its pending deliveries. */
export async function disableEndpoint(trx: Transaction<DB>, endpointId: string, reason: string, now: number): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('id', '=', endpointId)
    .where('status', '=', 'enabled')
    .execute();
  await cancelPendingDeliveries(trx, endpointId, now);
}

export async function cancelPendingDeliveries(db: Q, endpointId: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, locked_by: null, updated_at: now, completed_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/** When the next pending delivery falls due (a due time or a lease's end), or null when none is pending. */
export async function nextDueAt(db: Kysely<DB>): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
