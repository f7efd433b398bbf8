// Row types of events, and of the webhook endpoints, deliveries and attempts that send them
// (src/db/schema.ts assembles every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  merchant_id: string;
  environment: Environment;
  type: string;
  api_version: string;
  payment_intent_id: string | null;
  /** The whole event payload as sent to webhooks (JSON). */
  payload: string;
  created_at: number;
  /**
   * The writing transaction's id on PostgreSQL (set by the column default), 0 on SQLite. The event feed
   * orders by (txid, seq) and shows only events of finished transactions (migration 0003).
   */
  txid: Generated<number>;
}

/** enabled; paused (in the console: deliveries wait, unattempted, until resumed); disabled (after a 410 Gone). */
export type WebhookEndpointStatus = 'enabled' | 'paused' | 'disabled';

export interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  url: string;
  /** JSON array of event types; empty means every type. */
  events: string;
  /** The signing secret (`cwk_whsec_…`); kept in plain text because every delivery is signed with it. */
  secret: string;
  status: WebhookEndpointStatus;
  /** Why the endpoint was disabled (`gone`: it answered 410). */
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  environment: Environment;
  status: WebhookDeliveryStatus;
  /** Attempts claimed so far (a claim counts even when the worker died before recording its outcome). */
  attempt_count: number;
  /**
   * Real time (ms) when the delivery is next due, or when the current claim's lease runs out; null once
   * the delivery is finished. The worker claims pending rows whose time has come.
   */
  next_attempt_at: number | null;
  /** The attempt id holding the current claim, or null. */
  locked_by: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export type WebhookAttemptOutcome = 'pending' | 'succeeded' | 'failed';

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  attempt_number: number;
  url: string;
  outcome: WebhookAttemptOutcome;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: number;
  finished_at: number | null;
}

export type EventRow = Selectable<EventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
