// Disputes (chargebacks): Paystack's `charge.dispute.create` fires `payment_intent.disputed` once, the intent
// stays paid and carries `dispute` (open), its settlement is frozen and it cannot be refunded;
// `charge.dispute.resolve` closes it (`payment_intent.dispute_closed`): `declined` (the merchant contested)
// is won and the settlement is as it was, `merchant-accepted` is lost and its amount leaves the balance
// through the ledger. The sandbox's card 4000000000000259 is disputed, and the simulate outcomes
// `dispute_won` and `dispute_lost` close a sandbox dispute. Runs on SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { eventTypes, openCheckout, pay } from './helpers/checkout.js';
import { freePorts } from './helpers/server-process.js';
import { cardEnv, PAYSTACK_TEST_SECRET, pointWebhooksAt } from './helpers/card.js';
import { expectLedgerInvariant, paidSandboxIntent, simulate } from './helpers/ledger-invariant.js';
import { waitFor } from './helpers/wait.js';

describe(`disputes of card payments (${ENGINE})`, () => {
  let s: TestServer;
  let peer: PaystackPeer;
  let livePort: number;

  beforeAll(async () => {
    peer = await startPaystackPeer({ secretKey: PAYSTACK_TEST_SECRET });
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointWebhooksAt(peer, live);
    // Settlements are available at once (an established merchant), so a won dispute gives back `available`.
    s = await startTestServer({
      noLiveRails: true,
      env: { ...cardEnv(peer, live, sandbox), COWRIE_PAYSTACK_QUERY_AFTER_S: '1', COWRIE_NEW_MERCHANT_DAYS: '0' },
    });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  const live = (method: string, path: string, body?: unknown) =>
    s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  async function paidByCard() {
    const pi = (await live('POST', '/payment-intents', { amount: '400.00', currency: 'KES' })).json;
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect((await pay(s, page, { method: 'card', email: 'dispute@example.com' })).status).toBe(200);
    const tx = [...peer.transactions.values()].at(-1)!;
    const back = new URL(await peer.complete(tx.reference, 'success'));
    await fetch(`http://127.0.0.1:${livePort}${back.pathname}${back.search}`, { redirect: 'manual' });
    const paid = (await live('GET', `/payment-intents/${pi.id}`)).json;
    expect(paid.status).toBe('paid');
    return { pi: paid, tx };
  }
  const intentOf = async (id: string) => (await live('GET', `/payment-intents/${id}`)).json;
  const settlementOf = async (id: string) => (await live('GET', `/settlements?payment_intent=${id}`)).json.data[0];
  const usdt = async () => (await live('GET', '/balances')).json.data.find((b: any) => b.asset === 'USDT');

  it('charge.dispute.create: disputed once (sent twice), the intent paid with an open dispute, its settlement frozen, no refund', async () => {
    const { pi, tx } = await paidByCard();
    expect(pi.dispute).toBeNull();
    expect((await settlementOf(pi.id)).status).toBe('available');
    peer.webhookFault = 'twice';
    try {
      await peer.openDispute(tx.reference);
      await waitFor(
        'the dispute open',
        () => intentOf(pi.id),
        (x) => x.dispute !== null,
      );
      await waitFor(
        'both webhooks answered',
        () => peer.webhooks.filter((w) => w.event === 'charge.dispute.create').length,
        (n) => n >= 2,
      );
    } finally {
      peer.webhookFault = 'once';
    }
    const after = await intentOf(pi.id);
    expect(after.status).toBe('paid');
    expect(after.dispute).toMatchObject({ status: 'open', reason: 'chargeback', amount: '400.00', currency: 'KES', closed_at: null });
    expect((await eventTypes(s, pi.id)).filter((t) => t === 'payment_intent.disputed')).toHaveLength(1);
    expect((await settlementOf(pi.id)).status).toBe('frozen');
    const refund = await live('POST', '/refunds', { payment_intent: pi.id });
    expect(refund.status).toBe(409);
    expect(refund.json.error.code).toBe('intent_not_refundable');
  });

  it('resolved declined (the merchant contested): won, the settlement available again with its funds', async () => {
    const { pi, tx } = await paidByCard();
    const before = await usdt();
    const id = await peer.openDispute(tx.reference);
    await waitFor(
      'the dispute open',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'open',
    );
    await peer.resolveDispute(id, 'declined');
    const won = await waitFor(
      'the dispute won',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'won',
    );
    expect(won.status).toBe('paid');
    expect(won.dispute.closed_at).not.toBeNull();
    expect((await settlementOf(pi.id)).status).toBe('available');
    expect(await usdt()).toEqual(before);
    expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.dispute_closed');
  });

  it('resolved merchant-accepted: lost, the settlement’s amount leaves the balance through the ledger', async () => {
    const { pi, tx } = await paidByCard();
    const before = await usdt();
    const id = await peer.openDispute(tx.reference);
    await waitFor(
      'the dispute open',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'open',
    );
    await peer.resolveDispute(id, 'merchant-accepted');
    const lost = await waitFor(
      'the dispute lost',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'lost',
    );
    expect(lost.status).toBe('paid');
    const after = await usdt();
    const amount = (await settlementOf(pi.id)).amount;
    expect(Number(after.total)).toBeCloseTo(Number(before.total) - Number(amount), 6);
    expect(after.on_hold).toBe(before.on_hold);
    // A resolution sent again changes nothing.
    await peer.resolveDispute(id, 'declined');
    await waitFor(
      'the repeat answered',
      () => peer.webhooks.filter((w) => w.event === 'charge.dispute.resolve').length,
      (n) => n >= 3,
    );
    expect((await intentOf(pi.id)).dispute.status).toBe('lost');
  });

  it('sandbox: card 4000000000000259 is disputed; dispute_won and dispute_lost close it; no open dispute: 409', async () => {
    const refused = (id: string, outcome: string) =>
      s.sandbox('POST', `/sandbox/payment-intents/${id}/simulate`, { body: { outcome, payment_method: 'card' } });
    const won = await paidSandboxIntent(s, 'card');
    expect((await refused(won.id, 'dispute_won')).json.error.code).toBe('intent_not_payable');
    expect((await simulate(s, won.id, 'dispute')).dispute).toMatchObject({ status: 'open' });
    expect((await refused(won.id, 'dispute')).status).toBe(409);
    expect((await simulate(s, won.id, 'dispute_won')).dispute).toMatchObject({ status: 'won' });
    const lost = await paidSandboxIntent(s, 'card');
    await simulate(s, lost.id, 'dispute');
    expect((await simulate(s, lost.id, 'dispute_lost')).dispute).toMatchObject({ status: 'lost' });
    // The sandbox's disputed card: paid, then disputed.
    const pi = (await s.sandbox('POST', '/payment-intents', { body: { amount: '50.00', currency: 'KES' } })).json;
    const page = await openCheckout(s, pi.checkout_url);
    const r = await pay(s, page, { method: 'card', card_number: '4000000000000259', card_expiry: '12/40', card_cvc: '123' });
    expect(r.status, r.text).toBe(200);
    const disputed = (await s.sandbox('GET', `/payment-intents/${pi.id}`)).json;
    expect(disputed).toMatchObject({ status: 'paid', dispute: { status: 'open' } });
    expect((await eventTypes(s, lost.id)).slice(-2)).toEqual(['payment_intent.disputed', 'payment_intent.dispute_closed']);
  });
});
