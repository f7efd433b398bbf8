// `webhooks.constructEvent` of @cowrie/sdk on real deliveries from a real server to a real local
// receiver: both signature forms verify, in constant time, with a 300 s tolerance either side; a changed
// body, another secret, a missing header or a stale timestamp is refused with its own code.
import { Cowrie, SignatureVerificationError, constructEvent, generateHeaders, type Event } from '@cowrie/sdk';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINE } from './helpers/harness.js';
import { serverAndReceiver } from './helpers/webhooks.js';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SignatureVerificationError);
    return (err as SignatureVerificationError).code;
  }
  throw new Error('expected the delivery to be refused');
}

describe(`@cowrie/sdk webhooks.constructEvent (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver({ COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1' });
  let cowrie: Cowrie;
  let secret: string;

  beforeAll(async () => {
    cowrie = new Cowrie(server().merchant.keys.test_secret, { baseUrl: `${server().url('test')}/v1` });
    const endpoint = await cowrie.webhookEndpoints.create({ url: `${receiver().url}/hooks`, events: ['payment_intent.created'] });
    secret = endpoint.secret!;
    expect(secret).toMatch(/^cwk_whsec_/);
  });

  it('verifies a real delivery and answers its typed event', async () => {
    const intent = await cowrie.paymentIntents.create({ amount: '9.99', currency: 'USD', metadata: { note: 'naïve café ☕' } });
    const [delivery] = await receiver().waitFor((r) => r.length >= 1);
    const event: Event = cowrie.webhooks.constructEvent(delivery!.body, delivery!.headers, secret);
    expect(event).toMatchObject({ object: 'event', type: 'payment_intent.created', livemode: false });
    expect(event.id).toBe(delivery!.headers['service-event-id']);
    if (event.type === 'payment_intent.created') expect(event.data.id).toBe(intent.id);
    // The raw bytes verify as well as the text, and a Fetch Headers object as well as Node's headers.
    const asHeaders = new Headers(Object.entries(delivery!.headers).map(([k, v]): [string, string] => [k, String(v)]));
    expect(constructEvent(Buffer.from(delivery!.body, 'utf8'), asHeaders, secret).id).toBe(event.id);
    // The Standard Webhooks signature alone verifies too.
    const { 'service-signature': _drop, ...standardOnly } = delivery!.headers;
    expect(constructEvent(delivery!.body, standardOnly, secret).id).toBe(event.id);
  });

  it('refuses a changed body, another secret, missing headers and malformed signatures', async () => {
    const d = receiver().received[0]!;
    expect(refusal(() => constructEvent(d.body.replace('9.99', '0.01'), d.headers, secret))).toBe('signature_mismatch');
    expect(refusal(() => constructEvent(`${d.body} `, d.headers, secret))).toBe('signature_mismatch');
    // Another secret: its last character changed (to one it is not, so the test cannot pass by chance).
    const other = `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
    expect(refusal(() => constructEvent(d.body, d.headers, other))).toBe('signature_mismatch');
    expect(refusal(() => constructEvent(d.body, { ...d.headers, 'service-signature': 'zz' }, secret))).toBe('signature_mismatch');
    expect(refusal(() => constructEvent(d.body, {}, secret))).toBe('signature_missing');
    const { 'service-timestamp': _t, ...noTimestamp } = d.headers;
    expect(refusal(() => constructEvent(d.body, noTimestamp, secret))).toBe('timestamp_missing');
    expect(refusal(() => constructEvent(d.body, d.headers, ''))).toBe('secret_missing');
    // A signature over another timestamp does not verify with this one.
    expect(
      refusal(() =>
        constructEvent(d.body, { ...d.headers, 'service-timestamp': String(Number(d.headers['service-timestamp']) + 1) }, secret),
      ),
    ).toBe('signature_mismatch');
  });

  it('accepts a timestamp 300 s away either side and refuses one 301 s away', () => {
    const body = JSON.stringify({ id: 'evt_test', object: 'event', type: 'payment_intent.paid', data: {} });
    const signedAt = 1_800_000_000;
    const headers = generateHeaders({ payload: body, secret, id: 'evt_test', timestamp: signedAt });
    expect(constructEvent(body, headers, secret, { now: signedAt + 300 }).id).toBe('evt_test');
    expect(constructEvent(body, headers, secret, { now: signedAt - 300 }).id).toBe('evt_test');
    expect(refusal(() => constructEvent(body, headers, secret, { now: signedAt + 301 }))).toBe('timestamp_outside_tolerance');
    expect(refusal(() => constructEvent(body, headers, secret, { now: signedAt - 301 }))).toBe('timestamp_outside_tolerance');
    expect(constructEvent(body, headers, secret, { now: signedAt + 600, toleranceSeconds: 600 }).id).toBe('evt_test');
    // A delivery signed just now passes with the default clock.
    expect(constructEvent(body, generateHeaders({ payload: body, secret, id: 'evt_test' }), secret).id).toBe('evt_test');
  });

  it('signs as the server does: the standardwebhooks library verifies what generateHeaders makes', () => {
    const body = '{"id":"evt_x","object":"event"}';
    const headers = generateHeaders({ payload: body, secret, id: 'evt_x' });
    expect(new Webhook(secret, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
  });
});
