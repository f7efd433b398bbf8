// The merchant console's developer tools, over real HTTP on both engines: API keys (secret, restricted with
// scope checkboxes, publishable; a live IP allowlist; rotate with a grace period; revoke; the key shown once)
// and webhook endpoints (created with the secret shown once; pause and resume losing nothing; the secret
// rotated at once; deleted), each checked through the API or a real webhook receiver; a viewer offered none
// of it; the live side closed until the business is verified.
import { describe, expect, it } from 'vitest';
import { consoleHttp } from './helpers/console.js';
import { ENGINE } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';
import { deliveriesAtRest, verifyServiceSignature, serverAndReceiver } from './helpers/webhooks.js';

describe(`merchant console: developers (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver();
  const { request, signedInUser, csrfOf } = consoleHttp(server);
  const shownOf = (html: string) => /<code id="shown-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? '';

  const signIn = async (merchantId: string, role: 'owner' | 'developer' | 'viewer') =>
    (await signedInUser(merchantId, `${role}.${merchantId.slice(-6)}@dev.example`.toLowerCase(), role)).cookie;
  /** Posts a form of the developers page of `env`, with the page's CSRF token. */
  async function act(cookie: string, env: 'test' | 'live', path: string, fields: Array<[string, string]> = []) {
    const page = await request('GET', `/console/developers?env=${env}`, { cookie });
    return request('POST', `${path}?env=${env}`, { cookie, form: [['_csrf', csrfOf(page.html)], ...fields] });
  }

  it('keys: secret shown once and working; restricted with the ticked scopes; rotate with a grace period; revoke', async () => {
    const m = await server().newMerchant({ name: 'Keys shop', verified: false });
    const cookie = await signIn(m.merchant.id, 'developer');
    const created = await act(cookie, 'test', '/console/developers/keys', [['type', 'secret']]);
    expect(created.status).toBe(200);
    const secret = shownOf(created.html);
    expect(secret).toMatch(/^cwk_test_sk_/);
    expect((await server().call('test', 'GET', '/auth/verify', { key: secret })).status).toBe(200);
    // Shown once: the page afterwards lists only its hint.
    const page = await request('GET', '/console/developers?env=test', { cookie });
    expect(page.html).not.toContain(secret);
    expect(page.html).toContain(secret.slice(-4));

    const restricted = await act(cookie, 'test', '/console/developers/keys', [
      ['type', 'restricted'],
      ['scope', 'payments:read'],
      ['scope', 'refunds:read'],
    ]);
    const rk = shownOf(restricted.html);
    const verify = await server().call('test', 'GET', '/auth/verify', { key: rk });
    expect(verify.json.scopes.sort()).toEqual(['payments:read', 'refunds:read']);
    expect((await server().call('test', 'POST', '/payment-intents', { key: rk, body: { amount: '1.00', currency: 'USD' } })).status).toBe(
      403,
    );
    expect((await act(cookie, 'test', '/console/developers/keys', [['type', 'restricted']])).status).toBe(400);

    const id = (await server().call('test', 'GET', '/auth/verify', { key: secret })).json.key_id as string;
    const rotated = await act(cookie, 'test', `/console/developers/keys/${id}/rotate`, [['hours', '1']]);
    const replacement = shownOf(rotated.html);
    expect(replacement).toMatch(/^cwk_test_sk_/);
    expect((await server().call('test', 'GET', '/auth/verify', { key: replacement })).status).toBe(200);
    expect((await server().call('test', 'GET', '/auth/verify', { key: secret })).status).toBe(200);
    const newId = (await server().call('test', 'GET', '/auth/verify', { key: replacement })).json.key_id as string;
    // Without its confirmation box ticked, a revoke changes nothing.
    expect((await act(cookie, 'test', `/console/developers/keys/${newId}/revoke`)).status).toBe(400);
    expect((await server().call('test', 'GET', '/auth/verify', { key: replacement })).status).toBe(200);
    expect((await act(cookie, 'test', `/console/developers/keys/${newId}/revoke`, [['confirm', 'yes']])).status).toBe(303);
    expect((await server().call('test', 'GET', '/auth/verify', { key: replacement })).status).toBe(401);
    // Another merchant's key is not ours to revoke.
    const foreign = (await server().sandbox('GET', '/auth/verify')).json.key_id as string;
    expect((await act(cookie, 'test', `/console/developers/keys/${foreign}/revoke`)).status).toBe(404);
    expect((await server().sandbox('GET', '/auth/verify')).status).toBe(200);
    // Live is closed until the business is verified.
    expect((await act(cookie, 'live', '/console/developers/keys', [['type', 'secret']])).status).toBe(403);
  });

  it('a live key with an IP allowlist is refused from another address', async () => {
    const m = await server().newMerchant({ name: 'Live keys shop', verified: true });
    const cookie = await signIn(m.merchant.id, 'owner');
    const created = await act(cookie, 'live', '/console/developers/keys', [
      ['type', 'secret'],
      ['allowed_ips', '10.0.0.0/8'],
    ]);
    const key = shownOf(created.html);
    expect(key).toMatch(/^cwk_live_sk_/);
    const r = await server().call('live', 'GET', '/payment-intents', { key });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('ip_not_allowed');
  });

  it('webhook endpoints: secret shown once; pause holds deliveries, resume sends them all; a rotated secret signs at once', async () => {
    const m = await server().newMerchant({ name: 'Hooks shop', verified: false });
    const key = m.keys.test_secret;
    const cookie = await signIn(m.merchant.id, 'owner');
    const created = await act(cookie, 'test', '/console/developers/webhooks', [['url', `${receiver().url}/console-hooks`]]);
    const secret = shownOf(created.html);
    expect(secret).toMatch(/^cwk_whsec_/);
    const list = await server().call('test', 'GET', '/webhook_endpoints', { key });
    const ep = list.json.data[0];
    expect(ep.url).toBe(`${receiver().url}/console-hooks`);
    const mine = () => receiver().received.filter((r) => r.path === '/console-hooks');
    const fire = async () => {
      const r = await server().call('test', 'POST', '/payment-intents', { key, body: { amount: '2.00', currency: 'USD' } });
      expect(r.status).toBe(201);
    };
    await fire();
    await receiver().waitFor(() => mine().length === 1, 5000);
    expect(verifyServiceSignature(secret, mine()[0]!.headers, mine()[0]!.body)).toBe(true);

    expect((await act(cookie, 'test', `/console/developers/webhooks/${ep.id}/pause`)).status).toBe(303);
    expect((await server().call('test', 'GET', `/webhook_endpoints/${ep.id}`, { key })).json.status).toBe('paused');
    for (let i = 0; i < 3; i++) await fire();
    // The worker has claimed the three deliveries and parked them, unsent.
    expect((await deliveriesAtRest(server().running.database.db, m.merchant.id)).filter((d) => d.status === 'pending')).toHaveLength(3);
    expect(mine()).toHaveLength(1);
    expect((await act(cookie, 'test', `/console/developers/webhooks/${ep.id}/resume`)).status).toBe(303);
    await receiver().waitFor(() => mine().length === 4, 5000);
    expect(new Set(mine().map((r) => r.headers['service-event-id'])).size).toBe(4);
    // The endpoint's delivery log: each delivery with its event, status, attempts and last answer.
    const logPage = await waitFor(
      'four succeeded deliveries in the log',
      async () => (await request('GET', `/console/developers/webhooks/${ep.id}?env=test`, { cookie })).html,
      (html) => (html.match(/data-status="succeeded"/g) ?? []).length === 4,
    );
    expect((logPage.match(/data-status="succeeded"/g) ?? []).length).toBe(4);
    expect(logPage).toContain('HTTP 200');
    for (const r of mine()) expect(logPage).toContain(String(r.headers['service-event-id']));
    expect((await request('GET', `/console/developers/webhooks/we_nope?env=test`, { cookie })).status).toBe(404);

    const rotated = await act(cookie, 'test', `/console/developers/webhooks/${ep.id}/rotate`);
    const newSecret = shownOf(rotated.html);
    expect(newSecret).toMatch(/^cwk_whsec_/);
    expect(newSecret).not.toBe(secret);
    await fire();
    await receiver().waitFor(() => mine().length === 5, 5000);
    const last = mine()[4]!;
    expect(verifyServiceSignature(newSecret, last.headers, last.body)).toBe(true);
    expect(verifyServiceSignature(secret, last.headers, last.body)).toBe(false);

    expect((await act(cookie, 'test', `/console/developers/webhooks/${ep.id}/delete`)).status).toBe(400);
    expect((await act(cookie, 'test', `/console/developers/webhooks/${ep.id}/delete`, [['confirm', 'yes']])).status).toBe(303);
    expect((await server().call('test', 'GET', `/webhook_endpoints/${ep.id}`, { key })).status).toBe(404);
    const audit = await server().running.services.console.auditLog(m.merchant.id);
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining([
        'webhook_endpoint.created',
        'webhook_endpoint.paused',
        'webhook_endpoint.resumed',
        'webhook_endpoint.secret_rotated',
        'webhook_endpoint.deleted',
      ]),
    );
  });

  it('a viewer sees keys and endpoints but is offered no action, and is refused if it sends one', async () => {
    const m = await server().newMerchant({ name: 'Viewer shop', verified: false });
    const cookie = await signIn(m.merchant.id, 'viewer');
    const page = await request('GET', '/console/developers?env=test', { cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain(m.keys.test_secret.slice(-4));
    expect(page.html).not.toContain('Create key');
    expect(page.html).not.toContain('Revoke');
    expect((await act(cookie, 'test', '/console/developers/keys', [['type', 'secret']])).status).toBe(403);
  });
});
