// Webhook endpoints and the inspection and replay of emitted events (spec 2.6, 4.7; DECISIONS "Webhooks
// and events"). Delivery itself is the worker's (src/jobs/webhook-worker.ts, deliveries.repo.ts).
import { readPage, type Page } from '../../db/pagination.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { transaction, type Db } from '../../db/transaction.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { MerchantScope } from '../../shared/scope.js';
import { redeliverEvent } from '../events/index.js';
import { cancelPendingDeliveries } from './deliveries.repo.js';
import * as endpoints from './endpoints.repo.js';
import * as events from './webhook-events.repo.js';
import { newSigningSecret } from './signing.js';
import { assertEndpointUrl, urlPolicy, type Resolver } from './url-safety.js';
import { deliveryView, endpointView, webhookEventView, type WebhookEndpoint, type WebhookEvent } from './webhook.schema.js';

/** Endpoints per merchant and environment: each event fans out to every one of them. */
export const MAX_ENDPOINTS = 16;

export interface WebhookServiceDeps {
  db: Db;
  /** Real time: endpoint records and deliveries are compared with receivers' clocks. */
  clock: Clock;
  /** Sandbox endpoints may use http and private or loopback addresses (COWRIE_ALLOW_PRIVATE_WEBHOOKS). */
  allowPrivate: boolean;
  resolve?: Resolver;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async createEndpoint(scope: MerchantScope, input: { url: string; events?: string[] }): Promise<WebhookEndpoint & { secret: string }> {
    const { db, clock } = this.deps;
    await assertEndpointUrl(input.url, urlPolicy(scope.environment, this.deps.allowPrivate), this.deps.resolve);
    const now = clock.nowMs();
    const row: WebhookEndpointRow = {
      id: newId('webhook_endpoint'),
      merchant_id: scope.merchantId,
      environment: scope.environment,
      url: input.url,
      events: JSON.stringify([...new Set(input.events ?? [])]),
      secret: newSigningSecret(),
      status: 'enabled',
      disabled_reason: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await transaction(db, async (tx) => {
      if ((await endpoints.countEndpoints(tx, scope)) >= MAX_ENDPOINTS) {
        throw new AppError(
          'too_many_webhook_endpoints',
          `An environment holds at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`,
        );
      }
      await endpoints.insertEndpoint(tx, row);
    });
    return { ...endpointView(row), secret: row.secret };
  }

  /**
   * Changes the url (checked like a new endpoint's) or the event types (empty means every type). Deliveries
   * not yet made go to the new url; the event types apply to events from now on.
   */
  async updateEndpoint(scope: MerchantScope, id: string, input: { url?: string; events?: string[] }): Promise<WebhookEndpoint> {
    const { db, clock } = this.deps;
    const row = await endpoints.findEndpoint(db, scope, id);
    if (!row) throw notFound('webhook endpoint', id);
    if (input.url !== undefined)
      await assertEndpointUrl(input.url, urlPolicy(scope.environment, this.deps.allowPrivate), this.deps.resolve);
    const patch: Partial<WebhookEndpointRow> = {};
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = JSON.stringify([...new Set(input.events)]);
    if (Object.keys(patch).length === 0) return endpointView(row);
    patch.updated_at = clock.nowMs();
    if (!(await endpoints.updateEndpoint(db, scope, id, patch))) throw notFound('webhook endpoint', id);
    return endpointView({ ...row, ...patch });
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
   * Resend: a new delivery of the event to every enabled endpoint that subscribes to its type now, due at
   * once, with the event's own id and body. `resent` counts them.
   */
  async resendEvent(scope: MerchantScope, id: string): Promise<{ object: 'webhook_event'; id: string; resent: number }> {
    return { object: 'webhook_event', id, resent: await redeliverEvent(this.deps.db, scope, id) };
  }
}
