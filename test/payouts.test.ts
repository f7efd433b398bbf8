// Payouts through the API on both engines: POST /payouts (the record, the hold on available as ledger
// entries, every error, Idempotency-Key, scopes), GET /payouts (pages, status filter), GET /payouts/{id},
// sandbox payouts sent at once and paid 30 s of sandbox time later or failed by the sandbox helper, events
// in the feed and webhook deliveries, live payouts refused on a network without a sender, concurrent
// requests of one merchant never overdrawing, and `cowrie payouts approve|cancel|list`.
import { Cowrie, InvalidRequestError, type Payout } from '@cowrie/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliIn } from './helpers/cli.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { waitFor } from './helpers/wait.js';
import { advanceClock, applyLive, expectLedgerInvariant, newIntent, paidSandboxIntent } from './helpers/ledger-invariant.js';

const PAYOUT_KEYS = [
  'address',
  'amount',
  'asset',
  'created_at',
  'environment',
  'failure_reason',
  'id',
  'livemode',
  'network',
  'object',
  'paid_at',
  'request_id',
  'sent_at',
  'status',
  'tx_hash',
];
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe(`payouts (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({
      env: {
        COWRIE_JOB_INTERVAL_MS: '60000',
        COWRIE_NEW_MERCHANT_DAYS: '0',
        COWRIE_PAYOUT_AUTO_APPROVE: '5',
        COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1',
      },
    });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => s?.stop());

  const db = () => s.running.database.db;

  /** A merchant with `count` paid sandbox payments of 1500 KES in USDT (available at once: not a new merchant). */
  async function funded(count = 1) {
    const m = await s.newMerchant({ name: 'Payee', verified: true });
    for (let i = 0; i < count; i++) await paidSandboxIntent(s, 'card', { settlement_currency: 'USDT' }, m.keys.test_secret);
    return m;
  }
  const balance = async (key: string, env: 'test' | 'live' = 'test') => {
    const r = await s.call(env, 'GET', '/balances', { key });
    return r.json.data.find((b: any) => b.asset === 'USDT');
  };
  const payout = (key: string, body: object, opts: { env?: 'test' | 'live'; headers?: Record<string, string> } = {}) =>
    s.call(opts.env ?? 'test', 'POST', '/payouts', { key, body, ...(opts.headers ? { headers: opts.headers } : {}) });

  const cli = (...argv: string[]) =>
    runCliIn(
      {
        COWRIE_DATABASE_URL: s.config.databaseUrl,
        ...(ENGINE === 'postgres' ? { COWRIE_SECRETS_KEY: s.config.secretsKeys[0]!.toString('base64') } : {}),
      },
      argv,
    );

  it('a sandbox payout: 201 sent at once with a simulated hash, the amount held, paid 30 s of sandbox time later, events in the feed', async () => {
    const m = await funded();
    const key = m.keys.test_secret;
    const before = await balance(key);
    const r = await payout(key, { amount: '2.5', asset: 'USDT', network: 'TRON', address: TRON });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.json).sort()).toEqual(PAYOUT_KEYS);
    expect(r.json).toMatchObject({
      object: 'payout',
      amount: '2.500000',
      asset: 'USDT',
      network: 'TRON',
      address: TRON,
      status: 'sent',
      failure_reason: null,
      paid_at: null,
      livemode: false,
      environment: 'test',
    });
    expect(r.json.id).toMatch(/^po_[0-9A-Za-z]{24}$/);
    expect(r.json.tx_hash).toMatch(/^sandbox_[0-9a-f]{64}$/);
    expect(r.json.sent_at).toBe(r.json.created_at);
    const held = await balance(key);
    expect(Number(held.available)).toBeCloseTo(Number(before.available) - 2.5, 6);
    expect(held.total).toBe(before.total);
    await advanceClock(s, 29, key);
    expect((await s.call('test', 'GET', `/payouts/${r.json.id}`, { key })).json.status).toBe('sent');
    await advanceClock(s, 2, key);
    const paid = (await s.call('test', 'GET', `/payouts/${r.json.id}`, { key })).json;
    expect(paid).toMatchObject({ status: 'paid', tx_hash: r.json.tx_hash });
    expect(Date.parse(paid.paid_at) - Date.parse(paid.sent_at)).toBeGreaterThanOrEqual(30_000);
    expect(Date.parse(paid.paid_at) - Date.parse(paid.sent_at)).toBeLessThanOrEqual(60_000);
    const after = await balance(key);
    expect(after.available).toBe(held.available);
    expect(Number(after.total)).toBeCloseTo(Number(before.total) - 2.5, 6);
    // On PostgreSQL the feed shows an event once every transaction older than its own has finished, on the
    // whole server: another test file's transaction in flight can hold the last one back for a moment.
    const types = await waitFor(
      'the payout events in the feed',
      async () => {
        const feed = await s.call('test', 'GET', '/events?limit=100', { key });
        return (feed.json.data as any[])
          .filter((e) => e.data.id === r.json.id)
          .map((e) => e.type as string)
          .sort();
      },
      (t) => t.length === 3,
    );
    expect(types).toEqual(['payout.created', 'payout.paid', 'payout.sent']);
    // The ledger: hold, then sent to world.
    const kinds = await db()
      .selectFrom('ledger_entries')
      .select(['kind', 'account', 'amount'])
      .where('payout_id', '=', r.json.id)
      .execute();
    expect(
      kinds
        .filter((k) => k.account !== 'world')
        .map((k) => `${k.kind}:${k.account}:${Number(k.amount)}`)
        .sort(),
    ).toEqual(['payout_hold:merchant_available:-2.5', 'payout_hold:merchant_payout_held:2.5', 'payout_sent:merchant_payout_held:-2.5']);
  });

  it('webhooks: a subscribed sandbox endpoint gets a delivery of each payout event', async () => {
    const m = await funded();
    const key = m.keys.test_secret;
    const ep = await s.call('test', 'POST', '/webhook_endpoints', {
      key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['payout.created', 'payout.sent', 'payout.failed'] },
    });
    expect(ep.status, ep.text).toBe(201);
    const r = await payout(key, { amount: '1', asset: 'USDT', network: 'base', address: EVM });
    expect(r.json.network).toBe('BASE');
    const failed = await s.call('test', 'POST', `/sandbox/payouts/${r.json.id}/fail`, { key });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.json).toMatchObject({ status: 'failed', failure_reason: 'Failed by the sandbox test driver' });
    const deliveries = await db()
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select('e.type')
      .where('d.endpoint_id', '=', ep.json.id)
      .execute();
    expect(deliveries.map((d) => d.type).sort()).toEqual(['payout.created', 'payout.failed', 'payout.sent']);
    // Failed: released back to available; a failed payout cannot be failed again.
    const again = await s.call('test', 'POST', `/sandbox/payouts/${r.json.id}/fail`, { key });
    expectError(again, 400, 'parameter_invalid', 'id');
  });

  it('the sandbox trigger records a sample payout event of each payout type', async () => {
    const m = await funded();
    for (const type of ['payout.created', 'payout.sent', 'payout.paid', 'payout.failed', 'payout.cancelled']) {
      const r = await s.call('test', 'POST', '/sandbox/webhooks/trigger', { key: m.keys.test_secret, body: { type } });
      expect(r.status, r.text).toBe(200);
      const evt = await s.call('test', 'GET', `/webhook_events/${r.json.event}`, { key: m.keys.test_secret });
      expect(evt.json.data).toMatchObject({ object: 'payout', status: type === 'payout.created' ? 'requested' : type.slice(7) });
    }
  });

  it('errors: insufficient_balance, invalid address, amount, asset and network; nothing held by a refusal', async () => {
    const m = await funded();
    const key = m.keys.test_secret;
    const b = await balance(key);
    const tooMuch = await payout(key, {
      amount: (Number(b.available) + 0.000001).toFixed(6),
      asset: 'USDT',
      network: 'TRON',
      address: TRON,
    });
    expectError(tooMuch, 400, 'insufficient_balance', 'amount');
    expect(tooMuch.json.error.message).toContain(b.available);
    const noUsdc = await payout(key, { amount: '1', asset: 'USDC', network: 'TRON', address: TRON });
    expectError(noUsdc, 400, 'insufficient_balance', 'amount');
    expectError(await payout(key, { amount: '1', asset: 'USDT', network: 'TRON', address: EVM }), 400, 'parameter_invalid', 'address');
    expectError(await payout(key, { amount: '1', asset: 'USDT', network: 'BASE', address: TRON }), 400, 'parameter_invalid', 'address');
    expectError(await payout(key, { amount: '1', asset: 'USDT', network: 'SOLANA', address: '0OIl' }), 400, 'parameter_invalid', 'address');
    expectError(await payout(key, { amount: '0', asset: 'USDT', network: 'TRON', address: TRON }), 400, 'parameter_invalid', 'amount');
    expectError(
      await payout(key, { amount: '1.0000001', asset: 'USDT', network: 'TRON', address: TRON }),
      400,
      'parameter_invalid',
      'amount',
    );
    expectError(await payout(key, { amount: 1, asset: 'USDT', network: 'TRON', address: TRON }), 400, 'parameter_invalid', 'amount');
    expectError(await payout(key, { amount: '1', asset: 'BTC', network: 'TRON', address: TRON }), 400, 'parameter_invalid', 'asset');
    expectError(await payout(key, { amount: '1', asset: 'USDT', network: 'ETH', address: TRON }), 400, 'parameter_invalid', 'network');
    expectError(await payout(key, { amount: '1', asset: 'USDT', network: 'TRON' }), 400, 'parameter_missing', 'address');
    expectError(
      await payout(key, { amount: '1', asset: 'USDT', network: 'TRON', address: TRON, memo: 'x' }),
      400,
      'parameter_unknown',
      'memo',
    );
    expect((await balance(key)).available).toBe(b.available);
    expect(await db().selectFrom('payouts').select('id').where('merchant_id', '=', m.merchant.id).execute()).toHaveLength(0);
  });

  it('live: a network without a payout sender answers payout_network_unavailable; nothing is held', async () => {
    const m = await s.newMerchant({ name: 'Live payee', verified: true });
    const pi = await newIntent(s, { settlement_currency: 'USDT' }, 'live', m.keys.live_secret!);
    await applyLive(s, pi.id, 'card', 'success', m.merchant.id);
    const key = m.keys.live_secret!;
    const before = await balance(key, 'live');
    const r = await payout(key, { amount: '1', asset: 'USDT', network: 'BASE', address: EVM }, { env: 'live' });
    expectError(r, 400, 'payout_network_unavailable', 'network');
    expect(r.json.error.message).toContain('BASE');
    expect((await balance(key, 'live')).available).toBe(before.available);
  });

  it('Idempotency-Key: a retry answers the same payout and holds once; another body with the key is a conflict', async () => {
    const m = await funded();
    const key = m.keys.test_secret;
    const before = await balance(key);
    const headers = { 'Idempotency-Key': `po-${m.merchant.id}` };
    const body = { amount: '1.25', asset: 'USDT', network: 'POLYGON', address: EVM };
    const [a, b] = await Promise.all([payout(key, body, { headers }), payout(key, body, { headers })]);
    const ok = [a, b].filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of [a, b]) if (r.status !== 201) expectError(r, 409, 'idempotency_in_progress', 'Idempotency-Key');
    const c = await payout(key, body, { headers });
    expect(c.status).toBe(201);
    expect(c.json.id).toBe(ok[0]!.json.id);
    expect(c.headers.get('idempotent-replayed')).toBe('true');
    expectError(await payout(key, { ...body, amount: '1.26' }, { headers }), 409, 'idempotency_conflict', 'Idempotency-Key');
    expect(Number((await balance(key)).available)).toBeCloseTo(Number(before.available) - 1.25, 6);
  });

  it('concurrent payouts of one merchant never overdraw: exactly the ones that fit are made', async () => {
    const m = await funded();
    const key = m.keys.test_secret;
    const available = Number((await balance(key)).available);
    const each = Math.floor((available / 4.5) * 1e6) / 1e6; // four fit, the fifth and later do not
    const results = await Promise.all(
      Array.from({ length: 8 }, () => payout(key, { amount: each.toFixed(6), asset: 'USDT', network: 'TRON', address: TRON })),
    );
    const made = results.filter((r) => r.status === 201);
    for (const r of results) if (r.status !== 201) expectError(r, 400, 'insufficient_balance', 'amount');
    expect(made).toHaveLength(4);
    expect(Number((await balance(key)).available)).toBeGreaterThanOrEqual(0);
  });

  it('the SDK: payouts.create with a generated Idempotency-Key, retrieve, list as an iterator, sandbox.failPayout, typed errors', async () => {
    const m = await funded();
    const cowrie = new Cowrie(m.keys.test_secret, { baseUrl: `${s.url('test')}/v1` });
    const made: Payout = await cowrie.payouts.create({
      amount: '0.75',
      asset: 'USDT',
      network: 'SOLANA',
      address: 'So11111111111111111111111111111111111111112',
    });
    expect(made).toMatchObject({ object: 'payout', status: 'sent', network: 'SOLANA' });
    expect((await cowrie.payouts.retrieve(made.id)).id).toBe(made.id);
    const seen: string[] = [];
    for await (const p of cowrie.payouts.list({ limit: 1 })) seen.push(p.id);
    expect(seen).toEqual([made.id]);
    expect((await cowrie.sandbox.failPayout(made.id)).status).toBe('failed');
    const refused = await cowrie.payouts
      .create({ amount: '100000', asset: 'USDT', network: 'TRON', address: TRON })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect((refused as InvalidRequestError).code).toBe('insufficient_balance');
  });

  it('GET /payouts: newest first, pages with starting_after, the status filter; another merchant sees none; 404 for an unknown id', async () => {
    const m = await funded();
    const key = m.keys.test_secret;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await payout(key, { amount: '0.5', asset: 'USDT', network: 'TRON', address: TRON })).json.id);
    await s.call('test', 'POST', `/sandbox/payouts/${ids[1]}/fail`, { key });
    const page1 = await s.call('test', 'GET', '/payouts?limit=2', { key });
    expect(page1.status).toBe(200);
    expect(page1.json).toMatchObject({ object: 'list', has_more: true });
    expect(page1.json.data.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
    const page2 = await s.call('test', 'GET', `/payouts?limit=2&starting_after=${ids[1]}`, { key });
    expect(page2.json.data.map((p: any) => p.id)).toEqual([ids[0]]);
    expect(page2.json.has_more).toBe(false);
    const failed = await s.call('test', 'GET', '/payouts?status=failed', { key });
    expect(failed.json.data.map((p: any) => p.id)).toEqual([ids[1]]);
    expectError(await s.call('test', 'GET', '/payouts?status=lost', { key }), 400, 'parameter_invalid', 'status');
    expectError(await s.call('test', 'GET', '/payouts?starting_after=po_nope', { key }), 400, 'parameter_invalid', 'starting_after');
    const other = await funded();
    expect((await s.call('test', 'GET', '/payouts', { key: other.keys.test_secret })).json.data).toEqual([]);
    expectError(await s.call('test', 'GET', `/payouts/${ids[0]}`, { key: other.keys.test_secret }), 404, 'resource_missing', 'id');
    const one = await s.call('test', 'GET', `/payouts/${ids[0]}`, { key });
    expect(one.status).toBe(200);
    expect(Object.keys(one.json).sort()).toEqual(PAYOUT_KEYS);
  });

  it('scopes: a restricted key needs payouts:write to pay out and payouts:read to list', async () => {
    const m = await funded();
    const reader = await s.newKey({ merchantId: m.merchant.id, environment: 'test', type: 'restricted', scopes: ['payouts:read'] });
    const writer = await s.newKey({ merchantId: m.merchant.id, environment: 'test', type: 'restricted', scopes: ['payouts:write'] });
    const body = { amount: '0.1', asset: 'USDT', network: 'TRON', address: TRON };
    expectError(await payout(reader.key, body), 403, 'insufficient_scope');
    expect((await payout(writer.key, body)).status).toBe(201);
    expectError(await s.call('test', 'GET', '/payouts', { key: writer.key }), 403, 'insufficient_scope');
    expect((await s.call('test', 'GET', '/payouts', { key: reader.key })).status).toBe(200);
    expectError(await payout(m.keys.test_publishable, body), 403, 'publishable_key_not_allowed');
  });

  it('the operator: cowrie payouts list, approve and cancel; a payout not requested is refused with a reason; each is in the audit log', async () => {
    const m = await s.newMerchant({ name: 'Operator payee', verified: true });
    for (let i = 0; i < 2; i++) {
      const pi = await newIntent(s, { settlement_currency: 'USDT' }, 'live', m.keys.live_secret!);
      await applyLive(s, pi.id, 'card', 'success', m.merchant.id);
    }
    // No live sender here: the service is given live payouts straight, as the API would make them with one.
    const scope = { merchantId: m.merchant.id, environment: 'live' as const };
    const payouts = s.running.services.payouts;
    const networks = (payouts as any).deps.networks;
    (payouts as any).deps.networks = { has: () => true, isValidAddress: () => true };
    try {
      const big = await payouts.create(scope, { amount: '6', asset: 'USDT', network: 'TRON', address: TRON });
      const small = await payouts.create(scope, { amount: '5', asset: 'USDT', network: 'TRON', address: TRON });
      const other = await payouts.create(scope, { amount: '1', asset: 'USDT', network: 'TRON', address: TRON });
      expect(big.approved_at).toBeNull();
      expect(small.approved_at).not.toBeNull(); // up to COWRIE_PAYOUT_AUTO_APPROVE: approved at once
      const listed = await cli('payouts', 'list', '--status', 'requested', '--json');
      expect(listed.code, listed.out).toBe(0);
      const ids = JSON.parse(listed.out).payouts.map((p: any) => p.id);
      expect(ids).toEqual(expect.arrayContaining([big.id, small.id, other.id]));
      const human = await cli('payouts', 'list');
      expect(human.out).toContain(big.id);
      const approved = await cli('payouts', 'approve', big.id, '--json');
      expect(approved.code, approved.out).toBe(0);
      expect(JSON.parse(approved.out).payout).toMatchObject({ id: big.id, status: 'requested', approved: true });
      const twice = await cli('payouts', 'approve', big.id);
      expect(twice.code).not.toBe(0);
      expect(twice.out).toContain('already approved');
      const cancelled = await cli('payouts', 'cancel', other.id);
      expect(cancelled.code, cancelled.out).toBe(0);
      expect(cancelled.out).toContain('cancelled');
      const again = await cli('payouts', 'cancel', other.id);
      expect(again.code).not.toBe(0);
      expect(again.out).toContain('is cancelled; only a requested payout can be cancelled');
      const approveCancelled = await cli('payouts', 'approve', other.id);
      expect(approveCancelled.code).not.toBe(0);
      expect(approveCancelled.out).toContain('only a requested payout can be approved');
      const unknown = await cli('payouts', 'approve', 'po_unknown');
      expect(unknown.code).not.toBe(0);
      const audit = await db()
        .selectFrom('audit_log')
        .select(['action', 'target', 'actor'])
        .where('merchant_id', '=', m.merchant.id)
        .execute();
      const actions = audit.map((a) => `${a.action}:${a.target}:${a.actor}`);
      expect(actions).toEqual(
        expect.arrayContaining([
          `payout.requested:${big.id}:api`,
          `payout.approved:${small.id}:auto`,
          `payout.approved:${big.id}:operator`,
          `payout.cancelled:${other.id}:operator`,
        ]),
      );
      const b = await balance(m.keys.live_secret!, 'live');
      expect(Number(b.on_hold)).toBeCloseTo(11, 6);
    } finally {
      (payouts as any).deps.networks = networks;
    }
  });
});
