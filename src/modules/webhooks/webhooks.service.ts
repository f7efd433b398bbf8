// Webhook endpoints and the inspection and replay of emitted events, and the endpoint actions only the
// merchant console offers: pause, resume, rotate the secret. Delivery itself is the worker's
// (src/jobs/webhook-worker.ts, deliveries.repo.ts).
import { readPage, type Page } from '../../db/pagination.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { WriteBatch, runInTransaction, transaction, type CommitWith, type Db } from '../../db/transaction.js';
import { isoTime, systemClock, type Clock } from '../../shared/clock.js';
import { AppError, notFound, truncate } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { cancelPendingDeliveries, releaseDeliveries } from './deliveries.repo.js';
import * as endpoints from './endpoints.repo.js';
import { enqueueDeliveriesStatement } from './delivery-queue.repo.js';
import * as events from './webhook-events.repo.js';
import { newSigningSecret } from './signing.js';
import { assertEndpointUrl, urlPolicy, type Resolver } from './url-safety.js';
import { deliveryView, endpointView, statusOf, webhookEventView, type WebhookEndpoint, type WebhookEvent } from './webhook.schema.js';

/** Endpoints per merchant and environment: each event fans out to every one of them. */
export const MAX_ENDPOINTS = 16;

export interface WebhookServiceDeps {
  db: Db;
  /** Real time: endpoint records and deliveries are compared with receivers' clocks. */
  clock: Clock;
  /** Sandbox endpoints may use http and private or loopback addresses (COWRIE_ALLOW_PRIVATE_WEBHOOKS). */
  allowPrivate: boolean;
  /** Seals each endpoint's signing secret for storage; the delivery worker opens it with the same keys. */
  secrets: SecretBox;
  resolve?: Resolver;
}

/** The answer of a resend: how many new deliveries were queued. */
export interface Resent {
  object: 'webhook_event';
  id: string;
  resent: number;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async createEndpoint(
    scope: MerchantScope,
    input: { url: string; events?: string[] },
    commitWith?: CommitWith<WebhookEndpoint & { secret: string }>,
  ): Promise<WebhookEndpoint & { secret: string }> {
    const { db, clock } = this.deps;
    await assertEndpointUrl(input.url, urlPolicy(scope.environment, this.deps.allowPrivate), this.deps.resolve);
    const now = clock.nowMs();
    const id = newId('webhook_endpoint');
    const secret = newSigningSecret();
    const row: WebhookEndpointRow = {
      id,
      merchant_id: scope.merchantId,
      environment: scope.environment,
      url: input.url,
      events: JSON.stringify([...new Set(input.events ?? [])]),
      secret: this.deps.secrets.seal(secret, id),
      status: 'enabled',
      disabled_reason: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    const created = { ...endpointView(row), secret };
    await transaction(db, async (tx) => {
      if ((await endpoints.countEndpoints(tx, scope)) >= MAX_ENDPOINTS) {
        throw new AppError(
          'too_many_webhook_endpoints',
          `An environment holds at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
        );
      }
      await endpoints.insertEndpoint(tx, row);
      await commitWith?.inTransaction(tx, created);
    });
    return created;
  }

  /**
   * Changes the url (checked like a new endpoint's) or the event types (empty means every type). Deliveries
   * not yet made go to the new url; the event types apply to events from now on.
   */
  async updateEndpoint(
    scope: MerchantScope,
    id: string,
    input: { url?: string; events?: string[] },
    commitWith?: CommitWith<WebhookEndpoint>,
  ): Promise<WebhookEndpoint> {
    const { db, clock } = this.deps;
    const row = await endpoints.findEndpoint(db, scope, id);
    if (!row) throw notFound('webhook endpoint', id);
    if (input.url !== undefined)
      await assertEndpointUrl(input.url, urlPolicy(scope.environment, this.deps.allowPrivate), this.deps.resolve);
    const patch: Partial<WebhookEndpointRow> = {};
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = JSON.stringify([...new Set(input.events)]);
    if (Object.keys(patch).length > 0) patch.updated_at = clock.nowMs();
    const view = endpointView({ ...row, ...patch });
    await transaction(db, async (tx) => {
      if (Object.keys(patch).length > 0 && !(await endpoints.updateEndpoint(tx, scope, id, patch))) throw notFound('webhook endpoint', id);
      await commitWith?.inTransaction(tx, view);
    });
    return view;
  }

  async getEndpoint(scope: MerchantScope, id: string): Promise<WebhookEndpoint> {
    const row = await endpoints.findEndpoint(this.deps.db, scope, id);
    if (!row) throw notFound('webhook endpoint', id);
    return endpointView(row);
  }

  async listEndpoints(scope: MerchantScope): Promise<{ object: 'list'; data: WebhookEndpoint[] }> {
    return { object: 'list', data: (await endpoints.listEndpoints(this.deps.db, scope)).map(endpointView) };
  }

  /** Deletes the endpoint; its pending deliveries are cancelled. */
  async deleteEndpoint(scope: MerchantScope, id: string): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
    const now = this.deps.clock.nowMs();
    const deleted = await transaction(this.deps.db, async (tx) => {
      if (!(await endpoints.markDeleted(tx, scope, id, now))) return false;
      await cancelPendingDeliveries(tx, id, now);
      return true;
    });
    if (!deleted) throw notFound('webhook endpoint', id);
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  /**
   * Pauses an enabled endpoint (the merchant console): it stays subscribed, so new events and resends still
   * make deliveries for it, but the worker attempts none of them and counts no attempt; they wait, pending,
   * until resume. An attempt already under way finishes. Pausing a paused endpoint changes nothing; a
   * disabled one cannot be paused.
   */
  async pause(scope: MerchantScope, id: string): Promise<WebhookEndpoint> {
    const now = this.deps.clock.nowMs();
    const row = await transaction(this.deps.db, async (tx) => {
      await endpoints.changeStatus(tx, scope, id, 'enabled', 'paused', now);
      return endpoints.findEndpoint(tx, scope, id);
    });
    return endpointView(this.moved(row, id, 'pause'));
  }

  /**
   * Resumes a paused endpoint: `enabled` again, and every delivery that waited for it is due at once, the
   * delivery workers woken as for a new event. Resuming an enabled endpoint changes nothing; a disabled
   * one cannot be resumed (410 disabled it for good).
   */
  async resume(scope: MerchantScope, id: string): Promise<WebhookEndpoint> {
    const now = this.deps.clock.nowMs();
    const row = await transaction(this.deps.db, async (tx) => {
      if (await endpoints.changeStatus(tx, scope, id, 'paused', 'enabled', now)) await releaseDeliveries(tx, id, now);
      return endpoints.findEndpoint(tx, scope, id);
    });
    return endpointView(this.moved(row, id, 'resume'));
  }

  /**
   * Replaces the signing secret with a new one, effective at once: every attempt claimed from now on,
   * retries of earlier deliveries included, is signed with the new secret only (an attempt already under
   * way was signed with the old one). Answers the endpoint with its new secret, shown this once, as at
   * creation. A disabled endpoint's secret may be rotated too: it may have leaked all the same.
   */
  async rotateSecret(scope: MerchantScope, id: string): Promise<WebhookEndpoint & { secret: string }> {
    const secret = newSigningSecret();
    const sealed = this.deps.secrets.seal(secret, id);
    const now = this.deps.clock.nowMs();
    const row = await transaction(this.deps.db, async (tx) => {
      if (!(await endpoints.updateEndpoint(tx, scope, id, { secret: sealed, updated_at: now }))) return undefined;
      return endpoints.findEndpoint(tx, scope, id);
    });
    if (!row) throw notFound('webhook endpoint', id);
    return { ...endpointView(row), secret };
  }

  /** The endpoint after a pause or resume, read in its transaction: refused when missing or disabled. */
  private moved(row: WebhookEndpointRow | undefined, id: string, action: 'pause' | 'resume'): WebhookEndpointRow {
    if (!row) throw notFound('webhook endpoint', id);
    if (statusOf(row) === 'disabled') {
      throw new AppError(
        'parameter_invalid',
        `Webhook endpoint '${truncate(id, 80)}' is disabled (it answered 410 Gone), so it cannot be ${action}d; create a new endpoint instead.`,
        { param: 'id' },
      );
    }
    return row;
  }

  /** The latest deliveries to one of the merchant's endpoints, newest first (the console's delivery log). */
  async endpointDeliveries(scope: MerchantScope, id: string, limit = 50) {
    const endpoint = await endpoints.findEndpoint(this.deps.db, scope, id);
    if (!endpoint) throw notFound('webhook endpoint', id);
    const rows = await events.deliveriesOfEndpoint(this.deps.db, id, limit);
    return {
      endpoint: endpointView(endpoint),
      deliveries: rows.map((d) => ({
        id: d.id,
        event: d.event_id,
        type: d.type,
        status: d.status,
        attempt_count: Number(d.attempt_count),
        last_status_code: d.last_status_code,
        last_error: d.last_error,
        last_attempt_at: d.last_attempt_at === null ? null : isoTime(Number(d.last_attempt_at)),
        created_at: isoTime(Number(d.created_at)),
      })),
    };
  }

  async listEvents(scope: MerchantScope, opts: { limit: number; startingAfter?: string; type?: string }): Promise<Page<WebhookEvent>> {
    const db = this.deps.db;
    const page = await readPage(
      opts,
      (id) => events.findEvent(db, scope, id),
      (cursor, limit) => events.listEvents(db, scope, { cursor, limit, type: opts.type }),
      (row) => row,
    );
    const deliveries = await events.deliveriesOf(
      db,
      page.data.map((r) => r.id),
    );
    const now = systemClock.nowMs();
    return {
      ...page,
      data: page.data.map((row) =>
        webhookEventView(
          row,
          deliveries.filter((d) => d.event_id === row.id).map((d) => deliveryView(d, null, now)),
        ),
      ),
    };
  }

  async getEvent(scope: MerchantScope, id: string): Promise<WebhookEvent> {
    const db = this.deps.db;
    const row = await events.findEvent(db, scope, id);
    if (!row) throw notFound('webhook event', id);
    const [deliveries, attempts] = await Promise.all([events.deliveriesOf(db, [id]), events.attemptsOf(db, id)]);
    const now = systemClock.nowMs();
    return webhookEventView(
      row,
      deliveries.map((d) =>
        deliveryView(
          d,
          attempts.filter((a) => a.delivery_id === d.id),
          now,
        ),
      ),
    );
  }

  /**
   * Resend: a new delivery of the event to every endpoint that subscribes to its type now (enabled or
   * paused: a paused endpoint's waits for resume like any other), due at once, with the event's own id and
   * body. `resent` counts them.
   */
  async resendEvent(scope: MerchantScope, id: string, commitWith?: CommitWith<Resent>): Promise<Resent> {
    return redeliverEvent(this.deps.db, scope, id, commitWith);
  }
}

/**
 * Delivers an event again: a new delivery to every enabled endpoint that subscribes to its type now, due at
 * once, with the event's own id and body (the rule that wrote its first deliveries, read now). Answers how
 * many were written.
 */
async function redeliverEvent(db: Db, scope: MerchantScope, id: string, commitWith?: CommitWith<Resent>): Promise<Resent> {
  return transaction(db, async (tx) => {
    if (!(await events.findEventId(tx, scope, id))) throw notFound('webhook event', id);
    const deliveries = enqueueDeliveriesStatement(tx, [id]);
    const [result] = await runInTransaction(tx, new WriteBatch().add(deliveries.statement, deliveries.onCommit));
    const resent: Resent = { object: 'webhook_event', id, resent: deliveries.written(result!) };
    await commitWith?.inTransaction(tx, resent);
    return resent;
  });
}
