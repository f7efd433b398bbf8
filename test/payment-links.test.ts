// Payment links: create (idempotent), retrieve with every field, scopes and aliases, opening the url (each
// visit that goes on to pay mints a fresh intent), customer-entered amounts, paid_count, the max_payments cap
// under 20 concurrent payments, and expired or completed links.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { mintFromLink, openCheckout, pathOf, pay, publicCall, sendLinkForm, visitLink } from './helpers/checkout.js';

const LINK_KEYS = [
  'active',
  'amount',
  'created_at',
  'currency',
  'environment',
  'expires_at',
  'id',
  'livemode',
  'max_payments',
  'metadata',
  'object',
  'paid_count',
  'request_id',
  'settlement_currency',
  'status',
  'title',
  'url',
];

describe(`payment links (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    // Each customer minting from a link has an address of its own (mintFromLink), read from X-Forwarded-For.
    s = await startTestServer({ env: { COWRIE_TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => s?.stop());

  async function createLink(body: Record<string, unknown>, key?: string): Promise<any> {
    const r = await s.call('test', 'POST', '/payment-links', { key: key ?? s.merchant.keys.test_secret, body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  async function intentsOf(linkId: string) {
    return s.running.database.db
      .selectFrom('payment_intents')
      .selectAll()
      .where('payment_link', '=', linkId)
      .orderBy('created_at')
      .execute();
  }

  /** Opens the link's url like a browser's first request; answers the response (no redirect followed). */
  function open(url: string, query = '') {
    return publicCall(s, 'GET', `${pathOf(url)}${query}`);
  }

  /** A new visit of the link that goes on to pay: the intent it minted. */
  const mint = (url: string, amount?: string) => mintFromLink(s, url, amount);

  describe('POST /payment-links and GET /payment-links/{id}', () => {
    it('creates a link with every field, retrieves it, and its url is an absolute checkout address', async () => {
      const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const link = await createLink({
        title: 'Concert ticket',
        currency: 'KES',
        amount: '2500',
        settlement_currency: 'USDC',
        max_payments: 3,
        expires_at: expires,
      });
      expect(Object.keys(link).sort()).toEqual(LINK_KEYS);
      expect(link).toMatchObject({
        object: 'payment_link',
        status: 'active',
        title: 'Concert ticket',
        amount: '2500.00',
        currency: 'KES',
        settlement_currency: 'USDC',
        paid_count: 0,
        max_payments: 3,
        expires_at: expires,
        livemode: false,
        environment: 'test',
      });
      expect(link.id).toMatch(/^pl_[0-9A-Za-z]{24}$/);
      expect(link.url).toBe(`${new URL(s.config.sandboxUrl).origin}/pay/${link.id}`);
      expect(Date.parse(link.created_at)).toBeGreaterThan(Date.now() - 60_000);
      const got = await s.sandbox('GET', `/payment-links/${link.id}`);
      expect(got.status).toBe(200);
      const { request_id: _a, ...a } = got.json;
      const { request_id: _b, ...b } = link;
      expect(a).toEqual(b);

      const minimal = await createLink({ title: 'Tip jar', currency: 'USD' });
      expect(minimal).toMatchObject({ amount: null, settlement_currency: 'USDT', max_payments: null, expires_at: null, status: 'active' });
    });

    it("404 for an unknown id, another merchant's link, or the other environment", async () => {
      const link = await createLink({ title: 'Mine', currency: 'USD', amount: '5.00' });
      const other = await s.newMerchant({ name: 'Other', verified: true });
      for (const r of [
        await s.sandbox('GET', '/payment-links/pl_000000000000000000000000'),
        await s.call('test', 'GET', `/payment-links/${link.id}`, { key: other.keys.test_secret }),
        await s.call('live', 'GET', `/payment-links/${link.id}`, { key: s.merchant.keys.live_secret! }),
      ]) {
        expect(r.status, r.text).toBe(404);
        expect(r.json.error.code).toBe('resource_missing');
        expect(r.json.error.param).toBe('id');
      }
      expect((await open(link.url.replace('/pay/', '/pay/').replace(link.id, 'pl_000000000000000000000000'))).status).toBe(404);
      expect((await publicCall(s, 'GET', `/pay/${link.id}`, { env: 'live' })).status).toBe(404);
    });

    it('refuses invalid input and writes nothing', async () => {
      const count = async () =>
        Number(
          (
            await s.running.database.db
              .selectFrom('payment_links')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const cases: Array<[Record<string, unknown>, number, string, string]> = [
        [{ currency: 'USD' }, 400, 'parameter_missing', 'title'],
        [{ title: 'x' }, 400, 'parameter_missing', 'currency'],
        [{ title: '', currency: 'USD' }, 400, 'parameter_invalid', 'title'],
        [{ title: 'x', currency: 'XXX' }, 400, 'parameter_invalid', 'currency'],
        [{ title: 'x', currency: 'USD', amount: '1.234' }, 400, 'parameter_invalid', 'amount'],
        [{ title: 'x', currency: 'USD', amount: 5 }, 400, 'parameter_invalid', 'amount'],
        [{ title: 'x', currency: 'USD', amount: '0' }, 400, 'parameter_invalid', 'amount'],
        [{ title: 'x', currency: 'USD', settlement_currency: 'DOGE' }, 400, 'parameter_invalid', 'settlement_currency'],
        [{ title: 'x', currency: 'USD', max_payments: 0 }, 400, 'parameter_invalid', 'max_payments'],
        [{ title: 'x', currency: 'USD', max_payments: 1.5 }, 400, 'parameter_invalid', 'max_payments'],
        [{ title: 'x', currency: 'USD', expires_at: 'tomorrow' }, 400, 'parameter_invalid', 'expires_at'],
        [{ title: 'x', currency: 'USD', expires_at: new Date(Date.now() - 60_000).toISOString() }, 400, 'parameter_invalid', 'expires_at'],
        [{ title: 'x', currency: 'USD', colour: 'red' }, 400, 'parameter_unknown', 'colour'],
      ];
      for (const [body, status, code, param] of cases) {
        const r = await s.sandbox('POST', '/payment-links', { body });
        expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(status);
        expect(r.json.error.code, JSON.stringify(body)).toBe(code);
        expect(r.json.error.param, JSON.stringify(body)).toBe(param);
      }
      expect(await count()).toBe(before);
    });

    it('is idempotent: the same Idempotency-Key replays the first link; another body conflicts', async () => {
      const key = `link-${Date.now()}`;
      const body = { title: 'Idempotent', currency: 'USD', amount: '9.99' };
      const [a, b] = await Promise.all([
        s.sandbox('POST', '/payment-links', { body, headers: { 'Idempotency-Key': key } }),
        s.sandbox('POST', '/payment-links', { body, headers: { 'Idempotency-Key': key } }),
      ]);
      const statuses = [a.status, b.status].sort();
      expect(statuses[0]).toBe(201);
      expect([201, 409]).toContain(statuses[1]);
      const replay = await s.sandbox('POST', '/payment-links', { body, headers: { 'Idempotency-Key': key } });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const first = a.status === 201 ? a : b;
      expect(replay.text).toBe(first.text);
      const rows = await s.running.database.db.selectFrom('payment_links').select('id').where('title', '=', 'Idempotent').execute();
      expect(rows).toHaveLength(1);
      const conflict = await s.sandbox('POST', '/payment-links', {
        body: { ...body, amount: '10.00' },
        headers: { 'Idempotency-Key': key },
      });
      expect(conflict.status).toBe(409);
      expect(conflict.json.error.code).toBe('idempotency_conflict');
    });

    it('scopes: write with payment_links:write, its alias or checkout:write; read with payment_links:read, its alias or payments:read', async () => {
      const m = s.merchant.merchant.id;
      const key = async (scopes: string[]) => (await s.newKey({ merchantId: m, environment: 'test', type: 'restricted', scopes })).key;
      const link = await createLink({ title: 'Scoped', currency: 'USD' });
      for (const scopes of [['payment_links:write'], ['payment:links:write'], ['checkout:write']]) {
        const r = await s.call('test', 'POST', '/payment-links', { key: await key(scopes), body: { title: 'x', currency: 'USD' } });
        expect(r.status, scopes.join()).toBe(201);
      }
      for (const scopes of [['payments:write'], ['payment_links:read'], ['customers:write']]) {
        const r = await s.call('test', 'POST', '/payment-links', { key: await key(scopes), body: { title: 'x', currency: 'USD' } });
        expect(r.status, scopes.join()).toBe(403);
        expect(r.json.error.code).toBe('insufficient_scope');
      }
      for (const scopes of [['payment_links:read'], ['payment:links:read'], ['payments:read']]) {
        expect((await s.call('test', 'GET', `/payment-links/${link.id}`, { key: await key(scopes) })).status, scopes.join()).toBe(200);
      }
      for (const scopes of [['payment_links:write'], ['checkout:write'], ['customers:read']]) {
        expect((await s.call('test', 'GET', `/payment-links/${link.id}`, { key: await key(scopes) })).status, scopes.join()).toBe(403);
      }
    });
  });

  describe('opening the url', () => {
    it('shows the link without minting; each visit that goes on to pay mints a fresh intent with payment_link set', async () => {
      const link = await createLink({ title: 'Monthly box', currency: 'KES', amount: '1200.00' });
      // A HEAD (link checkers) and GETs (previews, crawlers, the customer reading the page) mint nothing.
      expect((await publicCall(s, 'HEAD', pathOf(link.url))).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const page = await open(link.url);
        expect(page.status).toBe(200);
        expect(page.text).toContain('Monthly box');
        expect(page.text).toContain('KES 1,200.00');
        expect(page.text).toContain('<form method="post"');
      }
      expect(await intentsOf(link.id)).toHaveLength(0);
      const first = await mint(link.url);
      const second = await mint(link.url);
      expect(first).not.toBe(second);
      for (const id of [first, second]) {
        const pi = await s.sandbox('GET', `/payment-intents/${id}`);
        expect(pi.json).toMatchObject({
          status: 'awaiting_payment',
          payment_link: link.id,
          amount: '1200.00',
          currency: 'KES',
          settlement_currency: 'USDT',
          description: 'Monthly box',
        });
        const events = await s.running.database.db.selectFrom('events').select('type').where('payment_intent_id', '=', id).execute();
        expect(events.map((e) => e.type)).toEqual(['payment_intent.created']);
      }
      const page = await openCheckout(s, `${new URL(link.url).origin}/checkout/${first}`);
      expect(page.status).toBe(200);
      expect(page.html).toContain('Monthly box');
      expect(page.html).toContain('KES 1,200.00');
    });

    it('asks for the amount first when the link has none, and validates it', async () => {
      const link = await createLink({ title: 'Donation', currency: 'USD', settlement_currency: 'USDC' });
      const form = await visitLink(s, link.url);
      expect(form.status).toBe(200);
      expect(form.text).toContain('<label for="amount">Amount to pay (USD)</label>');
      expect(form.text).toContain(`action="/pay/${link.id}"`);
      expect(form.headers.get('content-security-policy')).toContain("script-src 'self'");
      for (const bad of ['', 'abc', '0', '0.00', '1.234', '-5', '1e3', '9'.repeat(40)]) {
        const r = await sendLinkForm(s, form, { amount: bad });
        expect(r.status, bad).toBe(400);
        expect(r.text, bad).toContain('aria-invalid="true"');
        expect(r.text, bad).toContain('role="alert"');
      }
      // `?amount=` only fills in the form
      const suggested = await open(link.url, '?amount=7.00');
      expect(suggested.status).toBe(200);
      expect(suggested.text).toContain('value="7.00"');
      expect(await intentsOf(link.id)).toHaveLength(0);
      const id = await mint(link.url, '12.5');
      const pi = await s.sandbox('GET', `/payment-intents/${id}`);
      expect(pi.json).toMatchObject({ amount: '12.50', currency: 'USD', settlement_currency: 'USDC', payment_link: link.id });
      const ugx = await createLink({ title: 'UGX', currency: 'UGX' });
      expect((await sendLinkForm(s, await visitLink(s, ugx.url), { amount: '1000.5' })).status).toBe(400);
      expect(await mint(ugx.url, '1000')).toMatch(/^pi_/);
    });

    it('paid_count counts paid intents only', async () => {
      const link = await createLink({ title: 'Counted', currency: 'USD', amount: '3.00' });
      const ids = [await mint(link.url), await mint(link.url), await mint(link.url), await mint(link.url)];
      const card = (id: string, number: string) =>
        openCheckout(s, `${new URL(link.url).origin}/checkout/${id}`).then((p) =>
          pay(s, p, { method: 'card', card_number: number, card_expiry: '12/40', card_cvc: '123' }),
        );
      await card(ids[0]!, '4242424242424242');
      await card(ids[1]!, '4000000000000002');
      await s.sandbox('POST', `/payment-intents/${ids[2]}/cancel`);
      const got = await s.sandbox('GET', `/payment-links/${link.id}`);
      expect(got.json.paid_count).toBe(1);
      expect(got.json.status).toBe('active');
    });

    it('a minted intent never outlives its link', async () => {
      const expires = new Date(Date.now() + 10 * 60_000);
      const link = await createLink({ title: 'Flash sale', currency: 'USD', amount: '1.00', expires_at: expires.toISOString() });
      const id = await mint(link.url);
      const pi = await s.sandbox('GET', `/payment-intents/${id}`);
      expect(pi.json.expires_at).toBe(expires.toISOString());
    });
  });

  describe('max_payments', () => {
    it('holds under 20 concurrent payments: exactly max_payments end paid, the others are declined', async () => {
      const link = await createLink({ title: 'Limited edition', currency: 'USD', amount: '10.00', max_payments: 5 });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await mint(link.url));
      const results = await Promise.all(
        ids.map((id) =>
          s.sandbox('POST', `/sandbox/payment-intents/${id}/simulate`, { body: { outcome: 'success', payment_method: 'card' } }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(ok).toHaveLength(5);
      expect(refused).toHaveLength(15);
      for (const r of ok) expect(r.json.status).toBe('paid');
      for (const r of refused) {
        expect(r.status, r.text).toBe(409);
        expect(r.json.error.code).toBe('payment_link_completed');
      }
      const rows = await intentsOf(link.id);
      expect(rows.filter((r) => r.status === 'paid')).toHaveLength(5);
      expect(rows.filter((r) => r.status === 'awaiting_payment')).toHaveLength(15);
      const paidEvents = await s.running.database.db
        .selectFrom('events')
        .select('payment_intent_id')
        .where('type', '=', 'payment_intent.paid')
        .where('payment_intent_id', 'in', ids)
        .execute();
      expect(paidEvents).toHaveLength(5);
      const declined = await s.running.database.db
        .selectFrom('payment_attempts')
        .selectAll()
        .where('payment_intent_id', 'in', ids)
        .where('outcome', '=', 'declined')
        .execute();
      expect(declined).toHaveLength(15);
      for (const a of declined) expect(a.failure_code).toBe('payment_link_completed');

      const got = await s.sandbox('GET', `/payment-links/${link.id}`);
      expect(got.json).toMatchObject({ status: 'completed', paid_count: 5, max_payments: 5 });
      // A completed link shows a clear page and mints nothing.
      const page = await open(link.url);
      expect(page.status).toBe(410);
      expect(page.text).toContain('This payment link is complete');
      expect(await intentsOf(link.id)).toHaveLength(20);
      // A left-over checkout of the link says so and takes no payment.
      const leftover = rows.find((r) => r.status === 'awaiting_payment')!;
      const co = await openCheckout(s, `${new URL(link.url).origin}/checkout/${leftover.id}`);
      expect(co.html).toContain('This payment link is no longer taking payments');
      expect(co.html).not.toContain('name="method"');
      const r = await pay(s, co, { method: 'card', card_number: '4242424242424242', card_expiry: '12/40', card_cvc: '123' });
      expect(r.status).toBe(409);
      expect(r.json.error.code).toBe('payment_link_completed');
      expect(r.json.error.message).toContain('Nothing was taken from you');
    });

    it('holds through the checkout too: two customers racing for the last place', async () => {
      const link = await createLink({ title: 'Last seat', currency: 'KES', amount: '100.00', max_payments: 1 });
      const pages = await Promise.all(
        [mint(link.url), mint(link.url)].map(async (p) => openCheckout(s, `${new URL(link.url).origin}/checkout/${await p}`)),
      );
      const results = await Promise.all(pages.map((p) => pay(s, p, { method: 'service_balance' })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect((await s.sandbox('GET', `/payment-links/${link.id}`)).json).toMatchObject({ status: 'completed', paid_count: 1 });
    });
  });

  describe('expiry', () => {
    it('an expired link shows a clear page, mints nothing, and reads as expired', async () => {
      const m = await s.newMerchant({ name: 'Clocked' });
      const key = m.keys.test_secret;
      const link = await createLink(
        { title: 'Early bird', currency: 'USD', amount: '1.00', expires_at: new Date(Date.now() + 3_600_000).toISOString() },
        key,
      );
      await mint(link.url);
      const adv = await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 3_601 } });
      expect(adv.status).toBe(200);
      const got = await s.call('test', 'GET', `/payment-links/${link.id}`, { key });
      expect(got.json.status).toBe('expired');
      const page = await open(link.url);
      expect(page.status).toBe(410);
      expect(page.text).toContain('This payment link has expired');
      expect(await intentsOf(link.id)).toHaveLength(1);
    });
  });
});
