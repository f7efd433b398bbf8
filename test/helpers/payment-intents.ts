// What the payment-intent tests share: the documented rules written out independently of the server's,
// creating intents, and reads of the rows an intent leaves behind.
import { Decimal } from 'decimal.js';
import { expect } from 'vitest';
import { type TestServer } from './harness.js';
import { INTENT_KEYS } from './intents.js';

export const D = Decimal.clone({ precision: 100 });
export const SANDBOX_ORIGIN = 'https://sandbox.cowrie.test';
export const LIVE_ORIGIN = 'https://api.cowrie.test';
export const URL_ENV = { COWRIE_SANDBOX_URL: `${SANDBOX_ORIGIN}/v1`, COWRIE_LIVE_URL: `${LIVE_ORIGIN}/v1` };

export const RESPONSE_KEYS = [...new Set([...INTENT_KEYS, 'request_id', 'environment'])].sort();
export const FIAT_DECIMALS: Record<string, number> = { KES: 2, USD: 2, EUR: 2, UGX: 0 };
export const ASSET_DECIMALS: Record<string, number> = { USDT: 6, USDC: 6, BTC: 8, ETH: 18, SOL: 9 };
export const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The documented method rules, written out independently of the server's. */
export function expectedMethods(currency: string, asset: string): string[] {
  const out = ['service_balance'];
  if (currency === 'KES') out.push('mpesa');
  if (currency === 'KES' || currency === 'USD') out.push('card');
  if (currency !== 'KES') out.push('paypal');
  if (asset === 'USDT' || asset === 'USDC') out.push('external_wallet');
  return out;
}

export function up(value: Decimal, places: number): string {
  return value.toDecimalPlaces(places, Decimal.ROUND_CEIL).toFixed(places);
}

/** The record part of a response: without the per-request metadata. */
export function record(body: Record<string, unknown>): Record<string, unknown> {
  const { request_id: _r, environment: _e, ...rest } = body;
  return rest;
}

export interface CreateOptions {
  /** Default: the server's merchant's sandbox secret key. */
  key?: string;
  /** Default: test (the sandbox). */
  env?: 'test' | 'live';
  headers?: Record<string, string>;
}

/** Shared helpers over one server. */
export function helpers(get: () => TestServer) {
  const db = () => get().running.database.db;
  /** POST /payment-intents, as is: the test checks the answer. */
  const create = (body: unknown, o: CreateOptions = {}) =>
    get().call(o.env ?? 'test', 'POST', '/payment-intents', { key: o.key ?? get().merchant.keys.test_secret, body, headers: o.headers });
  return {
    create,
    /** POST /payment-intents that must answer 201: the created intent. */
    async createOk(body: Record<string, unknown>, o: CreateOptions = {}): Promise<Record<string, any>> {
      const r = await create(body, o);
      expect(r.status, r.text).toBe(201);
      return r.json;
    },
    async count(table: 'payment_intents' | 'events' | 'payment_attempts'): Promise<number> {
      const row = await db()
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    row(id: string) {
      return db().selectFrom('payment_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    },
    async events(id: string) {
      const rows = await db().selectFrom('events').selectAll().where('payment_intent_id', '=', id).orderBy('seq').execute();
      return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, any> }));
    },
    attempts(id: string) {
      return db()
        .selectFrom('payment_attempts')
        .selectAll()
        .where('payment_intent_id', '=', id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
  };
}
