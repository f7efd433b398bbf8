// Reports: JSON pages and streamed CSV of paid payments and settlements, the from/to window and its bounds,
// the export ceiling, formula-injection protection, and the window following the sandbox clock.
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { DAY, advanceClock, applyLive, expectLedgerInvariant, newIntent, paidSandboxIntent, simulate } from './helpers/ledger-invariant.js';

const PAYMENT_COLUMNS = [
  'id',
  'created_at',
  'paid_at',
  'status',
  'amount',
  'currency',
  'settlement_currency',
  'pay_amount',
  'payment_method',
  'merchant_reference',
];
const SETTLEMENT_COLUMNS = ['id', 'payment_intent', 'asset', 'amount', 'status', 'settled_at', 'available_at'];
const REFERENCES = ['=SUM(A1:A9)', '+254700000001', '-10', '@cmd', 'plain, with "quotes"\nand a newline', 'tab\there'];

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe(`reports (${ENGINE})`, () => {
  let s: TestServer;
  let m: CreatedMerchant;
  let key: string;
  const paidIds: string[] = [];

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
    m = await s.newMerchant({ name: 'Reporter' });
    key = m.keys.test_secret;
    for (const ref of REFERENCES) paidIds.push((await paidSandboxIntent(s, 'card', { merchant_reference: ref }, key)).id);
    // not in the payments report: unpaid intents
    await newIntent(s, {}, 'test', key);
    const failed = await newIntent(s, {}, 'test', key);
    await simulate(s, failed.id, 'failed', 'card', undefined, key);
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => s?.stop());

  const get = (path: string, k = key, env: 'test' | 'live' = 'test') => s.call(env, 'GET', path, { key: k });

  async function sandboxToday(k = key): Promise<number> {
    const r = await get('/sandbox/clock', k);
    return Date.parse(r.json.now);
  }

  describe('GET /reports/payments (JSON)', () => {
    it('lists paid payments newest first with the documented row shape', async () => {
      const r = await get('/reports/payments');
      expect(r.status, r.text).toBe(200);
      expect(r.json.object).toBe('list');
      expect(r.json.has_more).toBe(false);
      expect(r.json.environment).toBe('test');
      expect(r.json.data.map((x: any) => x.id)).toEqual([...paidIds].reverse());
      const row = r.json.data.at(-1);
      expect(Object.keys(row)).toEqual(PAYMENT_COLUMNS);
      expect(row).toMatchObject({
        status: 'paid',
        amount: '1500.00',
        currency: 'KES',
        settlement_currency: 'USDT',
        payment_method: 'card',
        merchant_reference: REFERENCES[0],
      });
      expect(row.paid_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('pages with limit and starting_after until has_more is false', async () => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await get(`/reports/payments?limit=4${after ? `&starting_after=${after}` : ''}`);
        expect(r.status, r.text).toBe(200);
        seen.push(...r.json.data.map((x: any) => x.id));
        if (!r.json.has_more) break;
        after = r.json.data.at(-1).id;
      }
      expect(seen).toEqual([...paidIds].reverse());
      expectError(await get('/reports/payments?starting_after=pi_nope'), 400, 'parameter_invalid', 'starting_after');
      expectError(await get('/reports/payments?limit=201'), 400, 'parameter_invalid', 'limit');
      expect((await get('/reports/payments?limit=200')).status).toBe(200);
    });

    it('shows a refunded payment with status refunded', async () => {
      const other = await s.newMerchant({ name: 'Refunded report' });
      const paid = await paidSandboxIntent(s, 'mpesa', {}, other.keys.test_secret);
      const refund = await s.call('test', 'POST', '/refunds', { key: other.keys.test_secret, body: { payment_intent: paid.id } });
      expect(refund.status).toBe(201);
      const r = await get('/reports/payments', other.keys.test_secret);
      expect(r.json.data).toHaveLength(1);
      expect(r.json.data[0]).toMatchObject({ id: paid.id, status: 'refunded' });
    });

    it("never shows the other environment's or another merchant's payments", async () => {
      const live = await newIntent(s, {}, 'live');
      await applyLive(s, live.id, 'card');
      const liveReport = await get('/reports/payments', s.merchant.keys.live_secret!, 'live');
      expect(liveReport.json.data.map((x: any) => x.id)).toEqual([live.id]);
      expect(liveReport.json.environment).toBe('live');
      const sandboxReport = await get('/reports/payments?limit=200');
      expect(sandboxReport.json.data.map((x: any) => x.id)).not.toContain(live.id);
      expect((await get('/reports/payments', s.merchant.keys.test_secret)).json.data.map((x: any) => x.id)).not.toContain(paidIds[0]);
    });
  });

  describe('window', () => {
    it('defaults to the 30 days up to today; refuses from after to, more than 366 days, and bad dates', async () => {
      const today = await sandboxToday();
      const t = dateOf(today);
      expect((await get(`/reports/payments?from=${t}&to=${t}`)).json.data).toHaveLength(REFERENCES.length);
      expect((await get(`/reports/payments?from=${dateOf(today - DAY * 1000 * 366)}&to=${t}`)).status).toBe(200);
      expectError(await get(`/reports/payments?from=${dateOf(today - DAY * 1000 * 367)}&to=${t}`), 400, 'parameter_invalid', 'from');
      expectError(await get(`/reports/payments?from=${dateOf(today - DAY * 1000 * 367)}`), 400, 'parameter_invalid', 'from');
      expectError(await get(`/reports/payments?from=${t}&to=${dateOf(today - DAY * 1000)}`), 400, 'parameter_invalid', 'from');
      expectError(await get('/reports/payments?from=2026-02-30'), 400, 'parameter_invalid', 'from');
      expectError(await get('/reports/payments?to=2026-13-01'), 400, 'parameter_invalid', 'to');
      expectError(await get('/reports/payments?to=yesterday'), 400, 'parameter_invalid', 'to');
      expectError(await get('/reports/settlements?from=2026-1-1'), 400, 'parameter_invalid', 'from');
      expectError(await get('/reports/payments?format=xml'), 400, 'parameter_invalid', 'format');
      expectError(await get('/reports/payments?bogus=1'), 400, 'parameter_unknown', 'bogus');
      // a window before any payment is empty
      expect(
        (await get(`/reports/payments?from=${dateOf(today - DAY * 1000 * 40)}&to=${dateOf(today - DAY * 1000 * 35)}`)).json.data,
      ).toEqual([]);
    });

    it("follows the merchant's sandbox clock: today moves, so the default window moves", async () => {
      const other = await s.newMerchant({ name: 'Time traveller' });
      const k = other.keys.test_secret;
      const paid = await paidSandboxIntent(s, 'card', {}, k);
      const day0 = await sandboxToday(k);
      await advanceClock(s, 40 * DAY, k);
      expect((await get('/reports/payments', k)).json.data).toEqual([]);
      expect((await get('/reports/settlements', k)).json.data).toEqual([]);
      const explicit = await get(`/reports/payments?from=${dateOf(day0)}`, k);
      expect(explicit.json.data.map((x: any) => x.id)).toEqual([paid.id]);
      const csv = await get('/reports/payments?format=csv', k);
      expect(csv.headers.get('content-disposition')).toBe(
        `attachment; filename="payments_${dateOf(day0 + 10 * DAY * 1000)}_${dateOf(day0 + 40 * DAY * 1000)}.csv"`,
      );
    });
  });

  describe('CSV', () => {
    it('streams the payments window as an attachment with a header row, quoting and formula protection', async () => {
      const today = await sandboxToday();
      const r = await get('/reports/payments?format=csv');
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(r.headers.get('content-disposition')).toBe(
        `attachment; filename="payments_${dateOf(today - 30 * DAY * 1000)}_${dateOf(today)}.csv"`,
      );
      expect(r.headers.get('service-request-id')).toMatch(/^req_/);
      expect(
        r.text.startsWith(
          'id,created_at,paid_at,status,amount,currency,settlement_currency,pay_amount,payment_method,merchant_reference\r\n',
        ),
      ).toBe(true);
      const rows: string[][] = parse(r.text);
      expect(rows[0]).toEqual(PAYMENT_COLUMNS);
      expect(rows).toHaveLength(REFERENCES.length + 1);
      const byId = new Map(rows.slice(1).map((row) => [row[0], row]));
      const refOf = (i: number) => byId.get(paidIds[i]!)![9];
      expect(refOf(0)).toBe("'=SUM(A1:A9)");
      expect(refOf(1)).toBe("'+254700000001");
      expect(refOf(2)).toBe("'-10");
      expect(refOf(3)).toBe("'@cmd");
      expect(refOf(4)).toBe('plain, with "quotes"\nand a newline');
      expect(refOf(5)).toBe('tab\there');
      expect(r.text).toContain('"plain, with ""quotes""\nand a newline"');
      const json = await get('/reports/payments');
      const first = json.json.data[0];
      expect(byId.get(first.id)!.slice(0, 9)).toEqual(PAYMENT_COLUMNS.slice(0, 9).map((c) => first[c]));
      expect(rows.slice(1).map((row) => row[0])).toEqual(json.json.data.map((x: any) => x.id));
    });

    it('streams settlements with their header and filename; an empty window is just the header', async () => {
      const today = await sandboxToday();
      const r = await get(`/reports/settlements?format=csv&from=${dateOf(today - DAY * 1000)}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-disposition')).toBe(
        `attachment; filename="settlements_${dateOf(today - DAY * 1000)}_${dateOf(today)}.csv"`,
      );
      const rows: string[][] = parse(r.text);
      expect(rows[0]).toEqual(SETTLEMENT_COLUMNS);
      expect(rows).toHaveLength(REFERENCES.length + 1);
      const json = await get('/reports/settlements');
      expect(Object.keys(json.json.data[0])).toEqual(SETTLEMENT_COLUMNS);
      expect(rows[1]).toEqual(SETTLEMENT_COLUMNS.map((c) => json.json.data[0][c] ?? ''));
      expect(json.json.data.map((x: any) => x.payment_intent)).toEqual([...paidIds].reverse());
      expect(json.json.data[0]).toMatchObject({ status: 'pending', asset: 'USDT' });

      const empty = await get(`/reports/settlements?format=csv&from=2020-01-01&to=2020-01-31`);
      expect(empty.text).toBe(SETTLEMENT_COLUMNS.join(',') + '\r\n');
      expect(empty.headers.get('content-disposition')).toBe('attachment; filename="settlements_2020-01-01_2020-01-31.csv"');
    });

    it('reads across batches without repeating or skipping a row, ties on paid_at included', async () => {
      const other = await s.newMerchant({ name: 'Bulk' });
      const k = other.keys.test_secret;
      const template = await paidSandboxIntent(s, 'card', {}, k);
      const db = s.running.database.db;
      const row = await db.selectFrom('payment_intents').selectAll().where('id', '=', template.id).executeTakeFirstOrThrow();
      // Bulk rows (no settlements or ledger legs, so removed before the invariant check), hundreds sharing each paid_at.
      const n = 2_345;
      const rows = Array.from({ length: n }, (_, i) => ({
        ...row,
        id: `pi_bulk${String(i).padStart(20, '0')}`,
        paid_at: row.paid_at! - (i % 7) * 1000,
      }));
      for (let i = 0; i < rows.length; i += 200)
        await db
          .insertInto('payment_intents')
          .values(rows.slice(i, i + 200))
          .execute();
      try {
        const r = await get('/reports/payments?format=csv', k);
        const parsed: string[][] = parse(r.text);
        const ids = parsed.slice(1).map((x) => x[0]);
        expect(ids).toHaveLength(n + 1);
        expect(new Set(ids).size).toBe(n + 1);
        const times = parsed.slice(1).map((x) => Date.parse(x[2]!));
        for (let i = 1; i < times.length; i++) expect(times[i]!).toBeLessThanOrEqual(times[i - 1]!);
      } finally {
        await db.deleteFrom('payment_intents').where('id', 'like', 'pi_bulk%').execute();
      }
    });

    it('refuses a window over the export ceiling with 400 report_too_large (JSON pages are not capped)', async () => {
      const small = await startTestServer({ env: { COWRIE_REPORT_MAX_ROWS: '2', COWRIE_JOB_INTERVAL_MS: '60000' } });
      try {
        for (let i = 0; i < 3; i++) await paidSandboxIntent(small, 'card');
        const r = await small.sandbox('GET', '/reports/payments?format=csv');
        expect(r.status, r.text).toBe(400);
        expect(r.json.error).toMatchObject({ code: 'report_too_large', param: null, type: 'invalid_request_error' });
        expect(r.json.error.message).toMatch(/3 rows.*ceiling of 2/);
        expect(r.headers.get('content-disposition')).toBeNull();
        expect((await small.sandbox('GET', '/reports/settlements?format=csv')).json.error.code).toBe('report_too_large');
        expect((await small.sandbox('GET', '/reports/payments')).json.data).toHaveLength(3);
        // a narrower window under the ceiling downloads
        const narrow = await small.sandbox('GET', '/reports/payments?format=csv&from=2020-01-01&to=2020-12-31');
        expect(narrow.status).toBe(200);
        await expectLedgerInvariant(small.running.database.db);
      } finally {
        await small.stop();
      }
    });
  });

  it('needs reports:read', async () => {
    const k = await s.newKey({
      merchantId: m.merchant.id,
      environment: 'test',
      type: 'restricted',
      scopes: ['payments:read', 'settlements:read', 'balances:read'],
    });
    const ok = await s.newKey({ merchantId: m.merchant.id, environment: 'test', type: 'restricted', scopes: ['reports:read'] });
    for (const path of ['/reports/payments', '/reports/settlements', '/reports/payments?format=csv']) {
      expectError(await get(path, k.key), 403, 'insufficient_scope', null);
      expect((await get(path, ok.key)).status).toBe(200);
    }
    expect((await s.call('test', 'GET', '/reports/payments')).status).toBe(401);
  });
});
