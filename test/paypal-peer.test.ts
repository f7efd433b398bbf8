// The PayPal peer speaks PayPal's protocol as the rail expects it: the token only for the right Basic
// credentials and grant; Bearer tokens checked; orders validated (currency, PayPal's decimals, the
// experience context) with PayPal's error shape; PayPal-Request-Id answering the first success again; the
// buyer page's three choices; capture refusals; verify-webhook-signature saying SUCCESS only for what it sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaypalPeer, type PaypalPeer } from '../peers/paypal/peer.js';
import { PAYPAL_TEST } from './helpers/paypal.js';

describe('the PayPal peer', () => {
  let peer: PaypalPeer;
  let token: string;
  beforeAll(async () => {
    peer = await startPaypalPeer(PAYPAL_TEST);
  });
  afterAll(async () => peer?.close());

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${peer.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: 'manual',
    });
    const text = await res.text();
    return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : text, headers: res.headers };
  };
  const order = (amount: Record<string, string>) => ({
    intent: 'CAPTURE',
    purchase_units: [{ reference_id: 'pi_1', custom_id: 'rp_1', amount }],
    payment_source: { paypal: { experience_context: { return_url: 'http://shop/return', cancel_url: 'http://shop/cancel' } } },
  });

  it('hands a token only for the app’s credentials and the client_credentials grant', async () => {
    const ask = (auth: string, body: string) =>
      fetch(`${peer.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    expect((await ask(basic(PAYPAL_TEST.clientId, 'wrong'), 'grant_type=client_credentials')).status).toBe(401);
    expect((await ask(basic(PAYPAL_TEST.clientId, PAYPAL_TEST.clientSecret), 'grant_type=password')).status).toBe(400);
    const ok = await ask(basic(PAYPAL_TEST.clientId, PAYPAL_TEST.clientSecret), 'grant_type=client_credentials');
    const json = (await ok.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(json).toMatchObject({ token_type: 'Bearer', expires_in: 32400 });
    token = json.access_token;
    const refused = await fetch(`${peer.url}/v2/checkout/orders/X`, { headers: { authorization: 'Bearer nope' } });
    expect(refused.status).toBe(401);
  });

  it('validates orders in PayPal’s error shape and answers the first success again for the same PayPal-Request-Id', async () => {
    const kes = await call('POST', '/v2/checkout/orders', order({ currency_code: 'KES', value: '100.00' }));
    expect(kes.status).toBe(422);
    expect(kes.json).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'CURRENCY_NOT_SUPPORTED' }] });
    expect(kes.json.debug_id).toMatch(/^[0-9a-f]+$/);
    const jpy = await call('POST', '/v2/checkout/orders', order({ currency_code: 'JPY', value: '100.50' }));
    expect(jpy.json.details[0].issue).toBe('DECIMAL_PRECISION');
    const first = await call('POST', '/v2/checkout/orders', order({ currency_code: 'USD', value: '10.00' }), {
      'paypal-request-id': 'rp_same',
    });
    expect(first.status).toBe(200);
    expect(first.json.links.find((l: any) => l.rel === 'payer-action').href).toBe(`${peer.url}/checkoutnow?token=${first.json.id}`);
    const again = await call('POST', '/v2/checkout/orders', order({ currency_code: 'USD', value: '10.00' }), {
      'paypal-request-id': 'rp_same',
    });
    expect(again.json.id).toBe(first.json.id);
    const notApproved = await call('POST', `/v2/checkout/orders/${first.json.id}/capture`, {});
    expect(notApproved.json.details[0].issue).toBe('ORDER_NOT_APPROVED');
  });

  it('the buyer page approves, declines at capture, or cancels; the capture is made once', async () => {
    const created = await call('POST', '/v2/checkout/orders', order({ currency_code: 'EUR', value: '5.00' }));
    const id = created.json.id as string;
    const page = await fetch(`${peer.url}/checkoutnow?token=${id}`);
    expect(await page.text()).toContain('Approve and pay');
    const cancel = await fetch(`${peer.url}/checkoutnow?token=${id}`, { method: 'POST', body: 'choice=cancel', redirect: 'manual' });
    expect(cancel.headers.get('location')).toBe(`http://shop/cancel?token=${id}`);
    const declining = await fetch(`${peer.url}/checkoutnow?token=${id}`, { method: 'POST', body: 'choice=declining', redirect: 'manual' });
    expect(declining.headers.get('location')).toBe(`http://shop/return?token=${id}&PayerID=PEERPAYER0001`);
    const declined = await call('POST', `/v2/checkout/orders/${id}/capture`, {}, { 'paypal-request-id': `capture-x` });
    expect(declined.json.details[0].issue).toBe('INSTRUMENT_DECLINED');
    peer.approve(id);
    const captured = await call('POST', `/v2/checkout/orders/${id}/capture`, {}, { 'paypal-request-id': `capture-x` });
    expect(captured.status).toBe(201);
    expect(captured.json.purchase_units[0].payments.captures[0]).toMatchObject({
      status: 'COMPLETED',
      amount: { currency_code: 'EUR', value: '5.00' },
    });
    const twice = await call('POST', `/v2/checkout/orders/${id}/capture`, {}, { 'paypal-request-id': 'capture-other' });
    expect(twice.json.details[0].issue).toBe('ORDER_ALREADY_CAPTURED');
  });

  it('verify-webhook-signature says SUCCESS only for a transmission it sent, with its webhook id and the event unchanged', async () => {
    const body = { transmission_id: 'unknown', transmission_sig: 'x', webhook_id: PAYPAL_TEST.webhookId, webhook_event: {} };
    const v = await call('POST', '/v1/notifications/verify-webhook-signature', body);
    expect(v.json).toEqual({ verification_status: 'FAILURE' });
  });
});
