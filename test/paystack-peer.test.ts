// The Paystack peer speaks Paystack's protocol as strictly as the tests need: the Bearer secret key, the
// `{status, message, data}` envelope, initialize's checks (email, integer subunits, currency, reference
// characters, a reference used once), verify of an unknown reference, the hosted page's choice sent back
// to callback_url with `trxref` and `reference`, and webhooks signed with the secret key (a bad signature
// when asked). No Cowrie server: the peer alone.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { waitFor } from './helpers/wait.js';

const KEY = 'sk_live_peer_test_key';

describe('the Paystack peer', () => {
  let peer: PaystackPeer;
  let receiver: http.Server;
  const received: Array<{ body: string; signature: string }> = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => {
          received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-paystack-signature']) });
          res.writeHead(200).end();
        });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    peer = await startPaystackPeer({ secretKey: KEY, webhookUrl: `http://127.0.0.1:${port}/hook` });
  });
  afterAll(async () => {
    await peer?.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const call = async (method: string, path: string, body?: unknown, key = KEY) => {
    const res = await fetch(`${peer.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const init = (over: Record<string, unknown> = {}) =>
    call('POST', '/transaction/initialize', {
      email: 'a@example.com',
      amount: 150050,
      currency: 'KES',
      reference: `ref-${Math.random().toString(36).slice(2)}`,
      callback_url: 'http://shop.example/back',
      channels: ['card'],
      ...over,
    });

  it('checks the key and initialize as Paystack does', async () => {
    expect((await call('POST', '/transaction/initialize', {}, 'wrong')).status).toBe(401);
    expect((await init({ email: 'nope' })).json).toEqual({ status: false, message: 'Invalid Email Address Passed' });
    expect((await init({ amount: 12.5 })).status).toBe(400);
    expect((await init({ currency: 'EUR' })).status).toBe(403);
    expect((await init({ reference: 'has_underscore' })).json.message).toBe('Invalid transaction reference');
    const ok = await init({ reference: 'rp-dup.1=' });
    expect(ok.json).toMatchObject({ status: true, data: { reference: 'rp-dup.1=' } });
    expect(ok.json.data.authorization_url).toMatch(new RegExp(`^${peer.url}/checkout/[0-9a-f]{16}$`));
    expect((await init({ reference: 'rp-dup.1=' })).json.message).toBe('Duplicate Transaction Reference');
    expect((await call('GET', '/transaction/verify/unknown')).json).toEqual({ status: false, message: 'Transaction reference not found' });
  });

  it('the hosted page sends the customer back with trxref and reference; verify and the signed webhook tell the outcome', async () => {
    const { json } = await init({ reference: 'rp-page-1' });
    const page = await fetch(json.data.authorization_url);
    expect(await page.text()).toContain('Insufficient funds');
    const chosen = await fetch(json.data.authorization_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=success',
      redirect: 'manual',
    });
    expect(chosen.status).toBe(302);
    expect(chosen.headers.get('location')).toBe('http://shop.example/back?trxref=rp-page-1&reference=rp-page-1');
    expect((await call('GET', '/transaction/verify/rp-page-1')).json.data).toMatchObject({
      status: 'success',
      amount: 150050,
      currency: 'KES',
    });
    const hook = (await waitFor('the charge.success webhook', () => received.find((r) => r.body.includes('rp-page-1'))))!;
    expect(JSON.parse(hook.body).event).toBe('charge.success');
    expect(hook.signature).toBe(createHmac('sha512', KEY).update(hook.body).digest('hex'));
  });

  it('declines and insufficient funds are failed transactions; a bad-signature webhook is signed with another key', async () => {
    await init({ reference: 'rp-decline' });
    await peer.complete('rp-decline', 'insufficient_funds');
    expect((await call('GET', '/transaction/verify/rp-decline')).json.data).toMatchObject({
      status: 'failed',
      gateway_response: 'Insufficient Funds',
    });
    await init({ reference: 'rp-bad-sig' });
    peer.webhookFault = 'bad_signature';
    await peer.complete('rp-bad-sig', 'success');
    peer.webhookFault = 'once';
    const hooks = await waitFor(
      'both webhooks',
      () => received.filter((r) => r.body.includes('rp-bad-sig')),
      (h) => h.length >= 1,
    );
    expect(hooks[0]!.signature).not.toBe(createHmac('sha512', KEY).update(hooks[0]!.body).digest('hex'));
  });
});
