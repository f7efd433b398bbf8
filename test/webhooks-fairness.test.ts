// One merchant's silent receiver cannot stall another's webhooks: an endpoint has at most 4 attempts in
// flight at once, and while it hangs with hundreds of deliveries queued, another endpoint's first attempts
// start within 1 s of their commit. Both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { WEBHOOK_ENV } from './helpers/webhooks.js';

describe(`webhook fairness between endpoints (${ENGINE})`, () => {
  let s: TestServer;
  let silent: Receiver;
  let healthy: Receiver;
  /** Requests the silent receiver holds right now, and the most it ever held at once. */
  let holding = 0;
  let mostHeld = 0;
  const releases: Array<() => void> = [];

  beforeAll(async () => {
    s = await startTestServer({
      // The longest timeout a lease allows: on a loaded machine the test may take over 10 s, and an attempt
      // cut off by its timeout is tried again while the receiver still counts the first one as held.
      env: { ...WEBHOOK_ENV, COWRIE_WEBHOOK_TIMEOUT_MS: '29000', COWRIE_WEBHOOK_LEASE_MS: '30000', COWRIE_WEBHOOK_CONCURRENCY: '64' },
    });
    // Answers nothing until the test lets go (or the server's 29 s timeout cuts it).
    silent = await startReceiver(
      () =>
        new Promise((resolve) => {
          holding++;
          mostHeld = Math.max(mostHeld, holding);
          releases.push(() => {
            holding--;
            resolve({ status: 200 });
          });
        }),
    );
    healthy = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(async () => {
    for (const release of releases.splice(0)) release();
    await s?.stop();
    await silent?.close();
    await healthy?.close();
  });

  it('a silent receiver with 300 events queued: at most 4 of its attempts in flight, the other merchant served within 1 s', async () => {
    const x = await s.newMerchant({ name: 'Silent shop' });
    const y = await s.newMerchant({ name: 'Healthy shop' });
    const asX = (method: string, path: string, body?: unknown) =>
      s.call('test', method, path, { key: x.keys.test_secret, ...(body === undefined ? {} : { body }) });
    const asY = (method: string, path: string, body?: unknown) =>
      s.call('test', method, path, { key: y.keys.test_secret, ...(body === undefined ? {} : { body }) });
    expect((await asX('POST', '/webhook_endpoints', { url: `${silent.url}/x` })).status).toBe(201);
    expect((await asY('POST', '/webhook_endpoints', { url: `${healthy.url}/y` })).status).toBe(201);

    for (let i = 0; i < 300; i++) expect((await asX('POST', '/payment-intents', { amount: '10.00', currency: 'USD' })).status).toBe(201);
    await waitFor(
      'the silent receiver holding its first attempts',
      () => holding,
      (n) => n > 0,
    );

    const committed: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await asY('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
      expect(r.status).toBe(201);
      committed.push(performance.now());
    }
    const got = await healthy.waitFor((r) => r.length >= 20, 20_000, "the healthy endpoint's 20 deliveries");
    const delays = got.slice(0, 20).map((r, i) => r.at - committed[i]!);
    for (const [i, d] of delays.entries()) expect(d, `delivery ${i}: ${delays.map((v) => v.toFixed(0)).join(', ')} ms`).toBeLessThan(1_000);
    expect(mostHeld, 'attempts in flight at once to the silent endpoint').toBe(4);
    expect(silent.received.length).toBe(4);
  }, 90_000);
});
