// @cowrie/sdk against a real running server: the environment from the key's prefix, typed answers, the
// error envelope on typed errors, and every list as an async iterator over all its pages.
import {
  AuthenticationError,
  ConnectionError,
  Cowrie,
  CowrieError,
  InvalidRequestError,
  PermissionError,
  type PaymentIntent,
} from '@cowrie/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/wait.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

describe(`@cowrie/sdk client (${ENGINE})`, () => {
  let s: TestServer;
  let cowrie: Cowrie;
  /** Every request the client made: method and URL. */
  const calls: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    calls.push(`${init?.method ?? 'GET'} ${String(input)}`);
    return fetch(input, init);
  };

  beforeAll(async () => {
    s = await startTestServer();
    cowrie = new Cowrie(s.merchant.keys.test_secret, { baseUrl: `${s.url('test')}/v1`, fetch: recordingFetch });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('tells the environment from the key prefix, and refuses a text that is not a key', () => {
    expect(cowrie.environment).toBe('test');
    expect(cowrie.livemode).toBe(false);
    const live = new Cowrie(s.merchant.keys.live_secret!);
    expect(live.environment).toBe('live');
    expect(live.baseUrl).toBe('http://localhost:4000/v1');
    expect(new Cowrie(s.merchant.keys.test_secret).baseUrl).toBe('http://localhost:4001/v1');
    expect(() => new Cowrie('sk_test_123')).toThrow(/cwk_test_/);
  });

  it('creates, retrieves and cancels a payment intent with the typed answers of the server', async () => {
    const created = await cowrie.paymentIntents.create({
      amount: '1500.00',
      currency: 'KES',
      merchant_reference: 'sdk-1',
      metadata: { cart: [1, 2] },
    });
    expect(created).toMatchObject({
      object: 'payment_intent',
      status: 'awaiting_payment',
      amount: '1500.00',
      currency: 'KES',
      livemode: false,
    });
    expect(created.id).toMatch(/^pi_/);
    expect(created.request_id).toMatch(/^req_/);
    expect(created.metadata).toEqual({ cart: [1, 2] });
    const again: PaymentIntent = await cowrie.paymentIntents.retrieve(created.id);
    expect(again.id).toBe(created.id);
    const cancelled = await cowrie.paymentIntents.cancel(created.id);
    expect(cancelled.status).toBe('cancelled');
    // Each POST carried an Idempotency-Key of its own.
    expect(calls.filter((c) => c.startsWith('POST')).length).toBeGreaterThanOrEqual(2);
  });

  it('throws typed errors carrying the envelope: type, code, param, request id, docs link', async () => {
    const bad = await cowrie.paymentIntents.create({ amount: '-15.00', currency: 'KES' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InvalidRequestError);
    expect(bad).toBeInstanceOf(CowrieError);
    const e = bad as InvalidRequestError;
    expect(e).toMatchObject({ statusCode: 400, type: 'invalid_request_error', code: 'parameter_invalid', param: 'amount' });
    expect(e.requestId).toMatch(/^req_/);
    expect(e.docsUrl).toMatch(/\/docs\/errors#parameter_invalid$/);
    expect(e.message).toMatch(/amount/);

    const missing = (await cowrie.paymentIntents.retrieve('pi_doesnotexist000000000000').catch((x: unknown) => x)) as CowrieError;
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id' });

    const unknownKey = new Cowrie(`cwk_test_sk_${'x'.repeat(32)}`, { baseUrl: `${s.url('test')}/v1` });
    const auth = await unknownKey.paymentIntents.list().catch((x: unknown) => x);
    expect(auth).toBeInstanceOf(AuthenticationError);
    expect(auth).toMatchObject({ statusCode: 401, code: 'invalid_api_key' });

    const publishable = new Cowrie(s.merchant.keys.test_publishable, { baseUrl: `${s.url('test')}/v1` });
    const denied = await publishable.paymentIntents.list().catch((x: unknown) => x);
    expect(denied).toBeInstanceOf(PermissionError);
    expect((denied as CowrieError).code).toBe('publishable_key_not_allowed');

    // A live key sent to the sandbox address: the server's environment_mismatch, not a guess of the SDK.
    const liveOnSandbox = new Cowrie(s.merchant.keys.live_secret!, { baseUrl: `${s.url('test')}/v1` });
    expect(await liveOnSandbox.customers.list().catch((x: unknown) => (x as CowrieError).code)).toBe('environment_mismatch');
  });

  it('reports a server that cannot be reached as a ConnectionError after its retries', async () => {
    const nowhere = new Cowrie(s.merchant.keys.test_secret, { baseUrl: 'http://127.0.0.1:9/v1', maxRetries: 1 });
    const err = await nowhere.customers.list().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).code).toBe('connection_failed');
  });

  it('iterates every item of every page of a list, newest first, once each', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await cowrie.customers.create({ reference: `sdk-page-${i}` })).id);
    calls.length = 0;
    const seen: string[] = [];
    for await (const customer of cowrie.customers.list({ limit: 3 })) seen.push(customer.id);
    expect(seen).toEqual([...made].reverse());
    // Three pages of 3, 3 and 1, the second and third asked with the previous page's last id.
    const pages = calls.filter((c) => c.includes('/customers'));
    expect(pages).toHaveLength(3);
    expect(pages[1]).toContain(`starting_after=${made[4]}`);
    expect(pages[2]).toContain(`starting_after=${made[1]}`);

    // Awaited, a list is its first page.
    const first = await cowrie.customers.list({ limit: 2 });
    expect(first.data.map((c) => c.id)).toEqual([made[6], made[5]]);
    expect(first.has_more).toBe(true);
    expect(await cowrie.customers.list({ limit: 2 }).toArray({ max: 5 })).toHaveLength(5);
  });

  it('follows the event feed forward with `after` across pages, oldest first', async () => {
    // The earlier tests' events; on PostgreSQL the feed may show none for a moment while other
    // transactions are open.
    const newest = (
      await waitFor(
        'an earlier event in the feed',
        async () => await cowrie.events.list({ limit: 1 }),
        (page) => page.data.length === 1,
      )
    ).data[0]!;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await cowrie.paymentIntents.create({ amount: `${10 + i}.00`, currency: 'USD' })).id);
    // On PostgreSQL the feed shows an event once every writing transaction older than it has finished, so
    // an earlier test's last event (held back when `newest` was read) may come after `newest` too: the
    // five intents' own events are picked out of what follows.
    const ours = (list: Array<{ data?: unknown }>) => list.filter((e) => made.includes((e.data as { id?: string } | undefined)?.id ?? ''));
    const events = await waitFor(
      'five new events in the feed',
      async () => ours(await cowrie.events.list({ after: newest.id, limit: 2 }).toArray()),
      (list) => list.length >= 5,
    );
    expect(events.map((e) => (e as { type: string }).type)).toEqual(Array(5).fill('payment_intent.created'));
    expect(events.map((e) => (e.data as { id: string }).id)).toEqual(made);
  });

  it('drives the sandbox: simulate a payment, trigger an event, read the clock', async () => {
    const intent = await cowrie.paymentIntents.create({ amount: '25.00', currency: 'USD' });
    const paid = await cowrie.sandbox.simulate(intent.id, { outcome: 'success', payment_method: 'card' });
    expect(paid.status).toBe('paid');
    const sent = await cowrie.sandbox.trigger('payment_intent.failed');
    expect(sent).toMatchObject({ object: 'event_trigger', type: 'payment_intent.failed', status: 'sent' });
    expect(sent.event).toMatch(/^evt_/);
    // The balance the payment made, from a list without pages: awaited or iterated alike.
    const balances = await cowrie.balances.list().toArray();
    expect(balances.find((b) => b.asset === 'USDT')?.total).toMatch(/^[1-9]\d*\.\d+$/);
    expect((await cowrie.balances.list()).data).toEqual(balances);
    const clock = await cowrie.sandbox.clock.retrieve();
    expect(clock.object).toBeDefined();
  });
});
