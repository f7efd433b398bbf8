// Refunds and disputes of live PayPal payments, against the PayPal peer. Refunds go through the shared
// approve/reject framework: requested until the operator approves, then `POST
// /v2/payments/captures/{capture id}/refund` with `PayPal-Request-Id` = the refund id (a second send after a
// crash answers the same refund), pending with PayPal's refund id, settled by `PAYMENT.CAPTURE.REFUNDED`
// (confirmed by `GET /v2/payments/refunds/{id}`) or by the questions; a refund PayPal fails is `failed` with a
// reason. Disputes: `CUSTOMER.DISPUTE.CREATED` opens one on the capture it names (once), `RESOLVED` closes
// it won (RESOLVED_SELLER_FAVOUR) or lost (RESOLVED_BUYER_FAVOUR). Runs on SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaypalPeer, type PaypalPeer } from '../peers/paypal/peer.js';
import { runCliIn } from './helpers/cli.js';
import { Decimal } from '../src/shared/money.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { eventTypes, openCheckout, pay } from './helpers/checkout.js';
import { freePorts } from './helpers/server-process.js';
import { expectLedgerInvariant } from './helpers/ledger-invariant.js';
import { PAYPAL_TEST, paypalEnv, pointPaypalWebhooksAt } from './helpers/paypal.js';
import { waitFor } from './helpers/wait.js';

describe(`refunds and disputes of live PayPal payments (${ENGINE})`, () => {
  let s: TestServer;
  let peer: PaypalPeer;
  let livePort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    peer = await startPaypalPeer({ ...PAYPAL_TEST, refundDelayMs: 100 });
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointPaypalWebhooksAt(peer, live);
    env = {
      ...paypalEnv(peer, live, sandbox),
      COWRIE_PAYPAL_QUERY_AFTER_S: '1',
      COWRIE_JOB_INTERVAL_MS: '200',
      COWRIE_NEW_MERCHANT_DAYS: '0',
    };
    s = await startTestServer({ noLiveRails: true, env });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  const live = (method: string, path: string, body?: unknown) =>
    s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  const intentOf = async (id: string) => (await live('GET', `/payment-intents/${id}`)).json;
  const refundOf = async (id: string) => (await live('GET', `/refunds/${id}`)).json;
  const cli = (...argv: string[]) =>
    runCliIn({ ...env, COWRIE_DATABASE_URL: s.config.databaseUrl, COWRIE_LIVE_PORT: String(livePort) }, [...argv, '--json']);
  /** A live USD intent paid with PayPal through the peer; answers the intent and the capture's id. */
  async function paidByPaypal(): Promise<{ pi: any; captureId: string }> {
    const pi = (await live('POST', '/payment-intents', { amount: '60.00', currency: 'USD' })).json;
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect((await pay(s, page, { method: 'paypal' })).json.state).toBe('pending');
    const order = [...peer.orders.values()].at(-1)!;
    const back = new URL(peer.approve(order.id));
    await fetch(`http://127.0.0.1:${livePort}${back.pathname}${back.search}`, { redirect: 'manual' });
    expect((await intentOf(pi.id)).status).toBe('paid');
    return { pi, captureId: order.capture!.id };
  }

  it('approve refunds the capture with the refund id as PayPal-Request-Id; PAYMENT.CAPTURE.REFUNDED settles it', async () => {
    const { pi, captureId } = await paidByPaypal();
    const r = await live('POST', '/refunds', { payment_intent: pi.id });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ status: 'requested', provider_reference: null });
    const approved = await cli('refunds', 'approve', r.json.id);
    expect(approved.code, approved.out).toBe(0);
    const post = peer.requests.find((q) => q.method === 'POST' && q.path === `/v2/payments/captures/${captureId}/refund`)!;
    expect(post.headers['paypal-request-id']).toBe(r.json.id);
    const sent = [...peer.refunds.values()].find((x) => x.captureId === captureId)!;
    expect(approved.json.refund).toMatchObject({ status: 'pending', provider_reference: sent.id });
    await waitFor(
      'the refund succeeded',
      () => refundOf(r.json.id),
      (x) => x.status === 'succeeded',
    );
    expect(peer.webhooks.some((w) => w.event === 'PAYMENT.CAPTURE.REFUNDED' && w.status === 200)).toBe(true);
    expect((await intentOf(pi.id)).status).toBe('refunded');
    // A second send (after a crash lost the first answer) answers the same refund: PayPal-Request-Id.
    const rail = s.running.services.rails.railFor('live', 'paypal')!;
    const again = await rail.sendRefund!({
      scope: { merchantId: s.merchant.merchant.id, environment: 'live' },
      intent: { ...pi, id: pi.id } as any,
      refundId: r.json.id,
      amount: new Decimal('60'),
    });
    expect(again).toMatchObject({ reference: sent.id });
    expect([...peer.refunds.values()].filter((x) => x.captureId === captureId)).toHaveLength(1);
  });

  it('with the webhook lost, the questions (GET the refund) settle it; a refund PayPal fails is failed with a reason', async () => {
    const { pi } = await paidByPaypal();
    const r = await live('POST', '/refunds', { payment_intent: pi.id });
    peer.webhookFault = 'never';
    try {
      expect((await cli('refunds', 'approve', r.json.id)).code).toBe(0);
      await waitFor(
        'the refund succeeded by the questions',
        () => refundOf(r.json.id),
        (x) => x.status === 'succeeded',
        { timeoutMs: 15_000 },
      );
    } finally {
      peer.webhookFault = 'once';
    }
    const other = await paidByPaypal();
    const f = await live('POST', '/refunds', { payment_intent: other.pi.id });
    peer.failNextRefund = true;
    expect((await cli('refunds', 'approve', f.json.id)).code).toBe(0);
    const failed = await waitFor(
      'the refund failed',
      () => refundOf(f.json.id),
      (x) => x.status === 'failed',
      { timeoutMs: 15_000 },
    );
    expect(failed.failure_reason).toContain('PayPal');
    expect((await intentOf(other.pi.id)).status).toBe('paid');
  });

  it('CUSTOMER.DISPUTE.CREATED opens a dispute once; RESOLVED_SELLER_FAVOUR closes it won', async () => {
    const { pi, captureId } = await paidByPaypal();
    peer.webhookFault = 'twice';
    const dispute = peer.openDispute(captureId);
    peer.webhookFault = 'once';
    const open = await waitFor(
      'the dispute open',
      () => intentOf(pi.id),
      (x) => x.dispute !== null,
    );
    expect(open).toMatchObject({
      status: 'paid',
      dispute: { status: 'open', reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', amount: '60.00', currency: 'USD' },
    });
    await waitFor(
      'both dispute webhooks answered',
      () => peer.webhooks.filter((w) => w.event === 'CUSTOMER.DISPUTE.CREATED' && w.status === 200).length,
      (n) => n >= 2,
    );
    expect((await eventTypes(s, pi.id)).filter((t) => t === 'payment_intent.disputed')).toHaveLength(1);
    peer.resolveDispute(dispute, 'RESOLVED_SELLER_FAVOUR');
    const won = await waitFor(
      'the dispute won',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'won',
    );
    expect(won.dispute.closed_at).not.toBeNull();
    expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.dispute_closed');
  });

  it('RESOLVED_BUYER_FAVOUR closes it lost', async () => {
    const { pi, captureId } = await paidByPaypal();
    const dispute = peer.openDispute(captureId, 'UNAUTHORISED');
    await waitFor(
      'the dispute open',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'open',
    );
    peer.resolveDispute(dispute, 'RESOLVED_BUYER_FAVOUR');
    const lost = await waitFor(
      'the dispute lost',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'lost',
    );
    expect(lost.dispute.reason).toBe('UNAUTHORISED');
  });

  it('PAYMENT.CAPTURE.REVERSED (PayPal took the money back) is a dispute opened and lost; a repeat changes nothing', async () => {
    const { pi, captureId } = await paidByPaypal();
    peer.webhookFault = 'twice';
    peer.reverseCapture(captureId);
    peer.webhookFault = 'once';
    const lost = await waitFor(
      'the dispute lost',
      () => intentOf(pi.id),
      (x) => x.dispute?.status === 'lost',
    );
    expect(lost).toMatchObject({ status: 'paid', dispute: { reason: 'PayPal reversed the payment' } });
    await waitFor(
      'both reversal webhooks answered',
      () => peer.webhooks.filter((w) => w.event === 'PAYMENT.CAPTURE.REVERSED' && w.status === 200).length,
      (n) => n >= 2,
    );
    const types = await eventTypes(s, pi.id);
    expect(types.filter((t) => t === 'payment_intent.disputed')).toHaveLength(1);
    expect(types.filter((t) => t === 'payment_intent.dispute_closed')).toHaveLength(1);
  });
});
