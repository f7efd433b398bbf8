// The only SQL of the delivery worker. A claim is one short transaction (mark due rows as taken with a
// lease, open an attempt row for each); the HTTP call happens after it commits; the outcomes of a batch
// of attempts are written in another short transaction. No transaction is ever open across a call to a
// receiver.
import { sql, type Compilable, type ExpressionBuilder, type RawBuilder } from 'kysely';
import { prepared } from '../../db/prepared.js';
import { engineOf, insertNotifying, randomHexSql } from '../../db/dialect.js';
import { signallingInsert } from '../../db/notify.js';
import type { DB, WebhookDeliveryStatus, WebhookEndpointRow } from '../../db/schema.js';
import { WriteBatch, runAtomic, runInTransaction, type Db, type Q, type Tx } from '../../db/transaction.js';
import { ID_PREFIXES, randomBase62, timeBase62 } from '../../shared/ids.js';
import type { Environment } from '../../shared/scope.js';
import { DELIVERY_CHANNEL } from './delivery-queue.repo.js';
import type { EndpointStatus } from './webhook.schema.js';

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

/** Attempts one endpoint may have in flight at once, across every process: a silent receiver delays only its own deliveries. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;

/**
 * Each endpoint's first MAX_IN_FLIGHT_PER_ENDPOINT due deliveries with their places (1 for the oldest), each
 * read from the pending-by-endpoint index alone: the k-th id and due time as scalar subqueries with OFFSET k
 * (a constant: neither engine takes an outer column there; both walk the index in the same order), the
 * places joined by UNION ALL. No join back to the table, whose planner would be free to scan it whole.
 */
function placePicks(now: number): RawBuilder<unknown> {
  const kth = (k: number, column: 'id' | 'next_attempt_at') => sql`(select ${sql.ref(`x.${column}`)} from webhook_deliveries x
      where x.endpoint_id = h.endpoint_id and x.status = 'pending' and x.next_attempt_at <= ${now}
      order by x.next_attempt_at limit 1 offset ${sql.lit(k)})`;
  const place = (k: number) =>
    sql`select ${kth(k, 'id')} as id, ${kth(k, 'next_attempt_at')} as next_attempt_at, ${sql.lit(k + 1)} as place, h.endpoint_id
    from heads h where h.endpoint_id is not null`;
  return sql.join(
    Array.from({ length: MAX_IN_FLIGHT_PER_ENDPOINT }, (_, k) => place(k)),
    sql` union all `,
  );
}

/**
 * The claim's choice, as the CTEs of its UPDATE: the due deliveries it takes, oldest first, never one of an
 * endpoint that has its MAX_IN_FLIGHT_PER_ENDPOINT attempts under way, and of the others no more than their
 * places left. It walks the endpoints that have pending deliveries (`heads`: a loose scan of the
 * pending-by-endpoint index, one seek per endpoint) and takes at most the first MAX_IN_FLIGHT_PER_ENDPOINT due
 * deliveries of each through the same index (`picks`: one seek per place), so a silent receiver's backlog,
 * however deep, costs a few seeks and never hides another endpoint's deliveries. Claims are one at a time
 * (on PostgreSQL under an advisory lock), so the count of attempts under way (`in_flight`) is exact.
 * 'pending' is a literal: SQLite uses a partial index only for a query whose condition names that very value.
 */
function fairDueCtes(now: number, limit: number): RawBuilder<unknown> {
  const places = sql.lit(MAX_IN_FLIGHT_PER_ENDPOINT);
  return sql`with recursive heads(endpoint_id) as (
      select min(endpoint_id) from webhook_deliveries where status = 'pending'
      union all
      select (select min(x.endpoint_id) from webhook_deliveries x where x.status = 'pending' and x.endpoint_id > heads.endpoint_id)
      from heads where heads.endpoint_id is not null
    ),
    in_flight(endpoint_id, n) as (
      select endpoint_id, count(*) from webhook_deliveries
      where locked_by is not null and status = 'pending' and next_attempt_at > ${now}
      group by endpoint_id
    ),
    picks(id, next_attempt_at, place, endpoint_id) as (${placePicks(now)}),
    due as materialized (
      select p.id from picks p left join in_flight f on f.endpoint_id = p.endpoint_id
      where p.id is not null and p.place <= ${places} - coalesce(f.n, 0)
      order by p.next_attempt_at, p.id limit ${limit}
    )`;
}

/** Serializes claims across processes on PostgreSQL (a transaction-scoped advisory lock; its key is arbitrary). */
const CLAIM_LOCK_KEY = 7_461_901;

/** One claim: its time, its token (deliveries.locked_by) and its lease's end. */
interface ClaimOf {
  db: Db;
  now: number;
  token: string;
  leaseEnd: number;
}

// 'pending' as a literal: SQLite uses the partial index (WHERE status = 'pending') only for a query whose
// condition names that very value, not a bound parameter.
const PENDING = sql.lit<WebhookDeliveryStatus>('pending');

/** The claim's own rows, found again through the due-time index: pending, due at the lease's end, holding its token. */
function ours(c: ClaimOf, t: 'webhook_deliveries' | 'd') {
  return <D, T extends keyof D>(eb: ExpressionBuilder<D, T>) =>
    eb.and([
      eb(sql.ref(`${t}.status`), '=', PENDING),
      eb(sql.ref(`${t}.next_attempt_at`), '=', c.leaseEnd),
      eb(sql.ref(`${t}.locked_by`), '=', c.token),
    ]);
}

/** Takes the chosen deliveries (computed once, materialized: the UPDATE must not re-run the choice per row). */
function claimStatement(c: ClaimOf, limit: number) {
  return sql`${fairDueCtes(c.now, limit)}
    update webhook_deliveries set attempt_count = attempt_count + 1, next_attempt_at = ${c.leaseEnd}, locked_by = ${c.token},
      updated_at = ${c.now}
    where id in (select id from due) and status = 'pending'`.compile(c.db);
}

/** The endpoint of the delivery still takes deliveries (a paused one too: its deliveries wait for it). */
function usable(eb: ExpressionBuilder<DB, 'webhook_deliveries'>) {
  return eb.exists(
    eb
      .selectFrom('webhook_endpoints as w')
      .select('w.id')
      .whereRef('w.id', '=', 'webhook_deliveries.endpoint_id')
      .where('w.status', '!=', 'disabled')
      .where('w.deleted_at', 'is', null),
  );
}

function paused(eb: ExpressionBuilder<DB, 'webhook_deliveries'>) {
  return eb.exists(
    eb
      .selectFrom('webhook_endpoints as w')
      .select('w.id')
      .whereRef('w.id', '=', 'webhook_deliveries.endpoint_id')
      .where(sql.ref('w.status'), '=', sql.lit<EndpointStatus>('paused')),
  );
}

/** Claimed deliveries whose endpoint was deleted or disabled meanwhile are cancelled. */
function cancelStatement(c: ClaimOf) {
  return c.db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'cancelled',
      attempt_count: eb('attempt_count', '-', 1),
      next_attempt_at: null,
      locked_by: null,
      completed_at: c.now,
    }))
    .where(ours(c, 'webhook_deliveries'))
    .where((eb) => eb.not(usable(eb)));
}

/**
 * Claimed deliveries of a paused endpoint are parked. Parking takes back the claim's count and leaves
 * next_attempt_at null, so the row drops out of the due index: each delivery of a paused endpoint is seen by
 * one claim only, however long the backlog grows, and nextDueAt does not see it at all (the worker does not
 * wake for it). Claiming first and parking after, rather than leaving these rows out of the claim, keeps the
 * claim's query a plain walk of the due index, which would otherwise step over the whole backlog at every
 * claim.
 */
function parkStatement(c: ClaimOf) {
  return c.db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempt_count: eb('attempt_count', '-', 1), next_attempt_at: null, locked_by: null }))
    .where(ours(c, 'webhook_deliveries'))
    .where(paused);
}

/** An attempt row for each claimed delivery, pending until its outcome is recorded. */
function openAttemptsStatement(c: ClaimOf) {
  const prefix = `${ID_PREFIXES.webhook_attempt}_${timeBase62(c.now)}`;
  return c.db
    .insertInto('webhook_attempts')
    .columns(['id', 'delivery_id', 'event_id', 'endpoint_id', 'attempt_number', 'url', 'outcome', 'started_at'])
    .expression(
      c.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
        .select([
          sql<string>`${prefix} || ${randomHexSql(engineOf(c.db))}`.as('id'),
          'd.id as delivery_id',
          'd.event_id',
          'd.endpoint_id',
          'd.attempt_count',
          'w.url',
          sql.lit('pending').as('outcome'),
          sql<number>`cast(${c.now} as bigint)`.as('started_at'),
        ])
        .where(ours(c, 'd')),
    );
}

/** What the worker needs of each claimed attempt: the endpoint, its secret and the event's body. */
function claimedAttemptsQuery(c: ClaimOf) {
  return c.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'a.endpoint_id')
    .innerJoin('events as e', 'e.id', 'a.event_id')
    .select([
      'a.id as attempt_id',
      'a.attempt_number',
      'a.delivery_id',
      'a.event_id',
      'w.id as endpoint_id',
      'w.url',
      'w.secret',
      'w.environment',
      'e.payload',
    ])
    .where(ours(c, 'd'))
    .whereRef('a.attempt_number', '=', 'd.attempt_count');
}

/** A new claim at `now`: its token and its lease's end. */
function newClaim(db: Db, now: number, leaseMs: number): ClaimOf {
  return { db, now, token: `clm_${randomBase62(16)}`, leaseEnd: now + leaseMs };
}

/** Claims run one at a time across processes: on PostgreSQL the transaction first takes the claim lock. */
function lockClaims(batch: WriteBatch, db: Db): WriteBatch {
  if (engineOf(db) === 'postgres') batch.add(sql`select pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`.compile(db));
  return batch;
}

/** The claim's statements; the last one answers the claimed attempts (claimedFrom reads them). */
function addClaim(batch: WriteBatch, c: ClaimOf, limit: number): WriteBatch {
  return batch
    .add(claimStatement(c, limit))
    .add(cancelStatement(c).compile())
    .add(parkStatement(c).compile())
    .add(openAttemptsStatement(c).compile())
    .add(claimedAttemptsQuery(c).compile());
}

interface ClaimedRow {
  attempt_id: string;
  attempt_number: number;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  url: string;
  secret: string;
  environment: Environment;
  payload: string;
}

function claimedFrom(c: ClaimOf, rows: readonly ClaimedRow[]): ClaimedAttempt[] {
  return rows.map((r) => ({
    deliveryId: r.delivery_id,
    eventId: r.event_id,
    attemptId: r.attempt_id,
    attemptNumber: Number(r.attempt_number),
    token: c.token,
    startedAt: c.now,
    endpoint: { id: r.endpoint_id, url: r.url, secret: r.secret, environment: r.environment },
    body: r.payload,
  }));
}

/**
 * Claims up to `limit` due deliveries (fairDue chooses them): their next_attempt_at becomes the lease's end,
 * so a claim of a worker that dies is due again when the lease runs out. Claims run one at a time: on
 * PostgreSQL under an advisory lock (across processes), on SQLite as every write. Deliveries whose endpoint was
 * deleted or disabled meanwhile are cancelled here instead, and those of a paused endpoint are parked:
 * still pending, with no attempt counted or opened, and no due time until the endpoint is resumed
 * (releaseDeliveries). Every step is a statement that needs no earlier answer (the claim is found again by
 * its token), so the whole claim is one transaction sent at once: one message to SQLite's thread.
 */
export async function claimDueDeliveries(db: Db, now: number, leaseMs: number, limit: number): Promise<ClaimedAttempt[]> {
  const c = newClaim(db, now, leaseMs);
  const results = await runAtomic(db, addClaim(lockClaims(new WriteBatch(), db), c, limit));
  return claimedFrom(c, results.at(-1)!.rows as ClaimedRow[]);
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

type AttemptRow = [id: string, outcome: string, statusCode: number | null, error: string | null, durationMs: number, finishedAt: number];
type DeliveryRow = [
  id: string,
  token: string,
  attemptCount: number,
  status: WebhookDeliveryStatus,
  nextAttemptAt: number | null,
  statusCode: number | null,
  error: string | null,
  startedAt: number,
  finishedAt: number,
  completedAt: number | null,
];

/** A raw SQL builder as something a prepared statement can compile. */
function raw(db: Q, query: RawBuilder<unknown>): Compilable<unknown> {
  return { compile: () => query.compile(db) };
}

const recordAttempts = prepared('record-attempts', (db: Q, rows: readonly AttemptRow[]) =>
  raw(
    db,
    sql`with v(id, outcome, status_code, error, duration_ms, finished_at) as (values ${sql.join(
      rows.map(
        ([id, outcome, code, error, ms, at]) =>
          sql`(${id}, ${outcome}, cast(${code} as integer), ${error}, cast(${ms} as integer), cast(${at} as bigint))`,
      ),
    )})
      update webhook_attempts set outcome = v.outcome, status_code = v.status_code, error = v.error, duration_ms = v.duration_ms,
        finished_at = v.finished_at
      from v where webhook_attempts.id = v.id`,
  ),
);

// Only the claim's holder moves a delivery on (a claim whose lease ran out was taken over).
const recordDeliveries = prepared('record-deliveries', (db: Q, rows: readonly DeliveryRow[]) =>
  raw(
    db,
    sql`with v(id, token, attempt_count, status, next_attempt_at, last_status_code, last_error, last_attempt_at, updated_at, completed_at) as (values ${sql.join(
      rows.map(
        ([id, token, n, status, next, code, error, started, finished, completed]) =>
          sql`(${id}, ${token}, cast(${n} as integer), ${status}, cast(${next} as bigint), cast(${code} as integer), ${error},
          cast(${started} as bigint), cast(${finished} as bigint), cast(${completed} as bigint))`,
      ),
    )})
      update webhook_deliveries set status = v.status, next_attempt_at = v.next_attempt_at, locked_by = null,
        last_status_code = v.last_status_code, last_error = v.last_error, last_attempt_at = v.last_attempt_at,
        updated_at = v.updated_at, completed_at = v.completed_at
      from v
      where webhook_deliveries.id = v.id and webhook_deliveries.locked_by = v.token
        and webhook_deliveries.attempt_count = v.attempt_count and webhook_deliveries.status = 'pending'`,
  ),
);

/** The claim that follows a record, in the same transaction. */
export interface NextClaim {
  now: number;
  leaseMs: number;
  /** How many deliveries it may take (0: none). */
  limit: number;
}

/**
 * Records finished attempts, all in one short transaction (the worker's group commit): one UPDATE of the
 * attempts and one of the deliveries, each joined to the outcomes as a VALUES list, sent together. With
 * `next`, the same transaction then claims what is due (claimDueDeliveries' statements, after the claim
 * lock taken first): the places the recorded attempts held at their endpoints are taken again at once, so
 * a busy endpoint's next deliveries start one transaction after the last ones finished. Answers what it
 * claimed.
 */
export async function recordOutcomes(db: Db, outcomes: readonly AttemptOutcome[], next?: NextClaim): Promise<ClaimedAttempt[]> {
  const c = next !== undefined && next.limit > 0 ? newClaim(db, next.now, next.leaseMs) : null;
  if (outcomes.length === 0 && c === null) return [];
  const batch = new WriteBatch();
  if (c !== null) lockClaims(batch, db);
  if (outcomes.length > 0) addRecords(batch, db, outcomes);
  if (c !== null) addClaim(batch, c, next!.limit);
  const results = await runAtomic(db, batch);
  return c === null ? [] : claimedFrom(c, results.at(-1)!.rows as ClaimedRow[]);
}

function addRecords(batch: WriteBatch, db: Db, outcomes: readonly AttemptOutcome[]): void {
  const attemptRows = outcomes.map((o): AttemptRow => [
    o.attempt.attemptId,
    o.succeeded ? 'succeeded' : 'failed',
    o.statusCode,
    o.error,
    Math.round(o.durationMs),
    o.finishedAt,
  ]);
  const deliveryRows = outcomes.map((o): DeliveryRow => {
    const status: WebhookDeliveryStatus = o.succeeded ? 'succeeded' : o.nextAttemptAt === null ? 'failed' : 'pending';
    return [
      o.attempt.deliveryId,
      o.attempt.token,
      o.attempt.attemptNumber,
      status,
      status === 'pending' ? o.nextAttemptAt : null,
      o.statusCode,
      o.error,
      o.attempt.startedAt,
      o.finishedAt,
      status === 'pending' ? null : o.finishedAt,
    ];
  });
  batch.add(recordAttempts(db, attemptRows)).add(recordDeliveries(db, deliveryRows));
  for (const o of outcomes) if (o.gone) addDisableEndpoint(batch, db, o.attempt.endpoint.id, 'gone', o.finishedAt);
}

/**
 * Disables an endpoint and cancels its pending deliveries (an endpoint that answered 410, even one paused
 * while that attempt was under way).
 */
function addDisableEndpoint(batch: WriteBatch, db: Q, endpointId: string, reason: string, now: number): WriteBatch {
  return batch
    .add(
      db
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
        .where('id', '=', endpointId)
        .where('status', '!=', 'disabled')
        .compile(),
    )
    .add(cancelPendingDeliveriesQuery(db, endpointId, now).compile());
}

export async function cancelPendingDeliveries(db: Q, endpointId: string, now: number): Promise<void> {
  await cancelPendingDeliveriesQuery(db, endpointId, now).execute();
}

function cancelPendingDeliveriesQuery(db: Q, endpointId: string, now: number) {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_at: null, locked_by: null, updated_at: now, completed_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending');
}

/**
 * Makes every pending delivery of an endpoint due now (a resumed endpoint's deliveries, parked by the claim
 * or not yet), and signals the delivery workers at commit as new deliveries do. A delivery whose attempt is
 * under way keeps its claim: its outcome decides what comes next. Answers how many were made due.
 */
export async function releaseDeliveries(tx: Tx, endpointId: string, now: number): Promise<number> {
  const update = tx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('locked_by', 'is', null);
  // insertNotifying wraps any writing statement that can answer RETURNING, an UPDATE as well as an INSERT.
  const release = signallingInsert(tx, insertNotifying(tx, update as never, DELIVERY_CHANNEL).compile(), DELIVERY_CHANNEL);
  const [result] = await runInTransaction(tx, new WriteBatch().add(release.statement, release.onCommit));
  return release.written(result!);
}

/**
 * When the next pending delivery falls due (a due time or a lease's end), or null when none is pending.
 * Parked deliveries (of a paused endpoint) have no due time and are not counted.
 */
export async function nextDueAt(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/** Deliveries waiting to be delivered (the queue depth a metric reports). */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
