// Webhook endpoints (spec 2.6, 4.7; DECISIONS "Webhooks and events").
import type { Kysely } from 'kysely';
import type { DB, WebhookEndpointRow } from '../../db/schema.js';
import { isoTime, type Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { EventType } from '../events/index.js';
import { cancelPendingDeliveries } from './deliveries.repo.js';
import * as repo from './endpoints.repo.js';
import { newSigningSecret } from './signing.js';
import { assertEndpointUrl, urlPolicy, type Resolver } from './url-safety.js';

/** Endpoints per merchant and environment: each event fans out to every one of them. */
export const MAX_ENDPOINTS = 16;

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: EventType[];
  status: 'enabled' | 'disabled';
  created_at: string;
  livemode: boolean;
}

export function endpointView(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    status: row.status,
    created_at: isoTime(row.created_at),
    livemode: row.environment === 'live',
  };
}

export interface EndpointDeps {
  db: Kysely<DB>;
  clock: Clock;
  allowPrivate: boolean;
  resolve?: Resolver;
}

export async function createEndpoint(
  deps: EndpointDeps,
  scope: repo.Scope,
  input: { url: string; events?: string[] },
): Promise<WebhookEndpoint & { secret: string }> {
  await assertEndpointUrl(input.url, urlPolicy(scope.environment, deps.allowPrivate), deps.resolve);
  const now = deps.clock.nowMs();
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
  await deps.db.transaction().execute(async (trx) => {
    if ((await repo.countEndpoints(trx, scope)) >= MAX_ENDPOINTS) {
      throw new AppError('too_many_webhook_endpoints', `An environment holds at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
    }
    await repo.insertEndpoint(trx, row);
  });
  return { ...endpointView(row), secret: row.secret };
}

export async function getEndpoint(db: Kysely<DB>, scope: repo.Scope, id: string): Promise<WebhookEndpoint> {
  const row = await repo.findEndpoint(db, scope, id);
  if (!row) throw notFound('webhook endpoint', id);
  return endpointView(row);
}

export async function listEndpoints(db: Kysely<DB>, scope: repo.Scope): Promise<{ object: 'list'; data: WebhookEndpoint[] }> {
  return { object: 'list', data: (await repo.listEndpoints(db, scope)).map(endpointView) };
}

/** Deletes the endpoint; its pending deliveries are cancelled. */
export async function deleteEndpoint(
  db: Kysely<DB>,
  clock: Clock,
  scope: repo.Scope,
  id: string,
): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  const now = clock.nowMs();
  const deleted = await db.transaction().execute(async (trx) => {
    if (!(await repo.markDeleted(trx, scope, id, now))) return false;
    await cancelPendingDeliveries(trx, id, now);
    return true;
  });
  if (!deleted) throw notFound('webhook endpoint', id);
  return { id, object: 'webhook_endpoint', deleted: true };
}
