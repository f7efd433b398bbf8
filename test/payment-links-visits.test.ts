// A payment link's page mints an intent only when the customer acts, once per visit: GETs, HEADs and previews
// mint nothing and fire no webhook; the form's visit token is checked like the checkout's; a double-submitted
// form, the back button and concurrent sends of one visit end in one intent; a deactivated link mints
// nothing. Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { mintFromLink, pathOf, publicCall, sendLinkForm, visitLink } from './helpers/checkout.js';

describe(`payment link visits (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  async function createLink(body: Record<string, unknown>): Promise<any> {
    const r = await s.sandbox('POST', '/payment-links', { body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }
  const intentsOf = (linkId: string) =>
    s.running.database.db.selectFrom('payment_intents').selectAll().where('payment_link', '=', linkId).orderBy('created_at').execute();
  const createdEvents = async () =>
    Number(
      (
        await s.running.database.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('type', '=', 'payment_intent.created')
          .executeTakeFirstOrThrow()
      ).n,
    );
  const location = (r: { status: number; headers: Headers; text: string }) => {
    expect(r.status, r.text.slice(0, 300)).toBe(303);
    return r.headers.get('location')!.split('/').pop()!;
  };

  it('previews, crawlers and HEADs mint nothing and fire no event', async () => {
    const link = await createLink({ title: 'Preview me', currency: 'KES', amount: '100.00' });
    const before = await createdEvents();
    const agents = ['facebookexternalhit/1.1', 'WhatsApp/2.23', 'Slackbot-LinkExpanding 1.0', 'Googlebot/2.1', 'curl/8'];
    for (const ua of agents) {
      expect((await publicCall(s, 'GET', pathOf(link.url), { headers: { 'user-agent': ua } })).status).toBe(200);
      expect((await publicCall(s, 'HEAD', pathOf(link.url), { headers: { 'user-agent': ua } })).status).toBe(200);
    }
    expect(await intentsOf(link.id)).toHaveLength(0);
    expect(await createdEvents()).toBe(before);
    // The page carries a visit cookie scoped to the link, HttpOnly and Lax
    const visit = await visitLink(s, link.url);
    const cookie = visit.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^cowrie_link_visit=[^;]+; Max-Age=\d+; Path=\/pay\/pl_[0-9A-Za-z]+; HttpOnly; SameSite=Lax$/);
    expect(visit.headers.get('cache-control')).toBe('no-store');
  });

  it('one visit mints once: the form sent twice, or again after going back, goes to the same intent', async () => {
    const link = await createLink({ title: 'Once', currency: 'KES', amount: '250.00' });
    const visit = await visitLink(s, link.url);
    const first = location(await sendLinkForm(s, visit));
    const again = location(await sendLinkForm(s, visit));
    expect(again).toBe(first);
    // A browser sends `Origin: null` for a form on a no-referrer page: the token is what counts.
    expect(location(await sendLinkForm(s, visit, {}, { headers: { origin: 'null' } }))).toBe(first);
    // Reopening the page in the same browser keeps the visit (the cookie), so it still goes there.
    const reopened = await visitLink(s, link.url, { cookie: visit.cookie });
    expect(reopened.token).toBe(visit.token);
    expect(location(await sendLinkForm(s, reopened))).toBe(first);
    expect(await intentsOf(link.id)).toHaveLength(1);
    // Another visit (another browser) mints its own.
    const other = await mintFromLink(s, link.url);
    expect(other).not.toBe(first);
    expect(await intentsOf(link.id)).toHaveLength(2);
  });

  it('a visit whose intent ended, or that asks another amount, mints a fresh intent and follows it', async () => {
    const link = await createLink({ title: 'Tip jar', currency: 'USD' });
    const visit = await visitLink(s, link.url);
    const five = location(await sendLinkForm(s, visit, { amount: '5' }));
    expect(location(await sendLinkForm(s, visit, { amount: '5.00' }))).toBe(five);
    const ten = location(await sendLinkForm(s, visit, { amount: '10' }));
    expect(ten).not.toBe(five);
    expect(location(await sendLinkForm(s, visit, { amount: '10' }))).toBe(ten);
    expect((await s.sandbox('POST', `/payment-intents/${ten}/cancel`)).status).toBe(200);
    const fresh = location(await sendLinkForm(s, visit, { amount: '10' }));
    expect([five, ten]).not.toContain(fresh);
    const rows = await intentsOf(link.id);
    expect(rows.map((r) => r.amount).sort()).toEqual(['10.00', '10.00', '5.00']);
  });

  it('20 concurrent sends of one visit mint exactly one intent', async () => {
    const link = await createLink({ title: 'Double click', currency: 'KES', amount: '75.00' });
    const visit = await visitLink(s, link.url);
    const before = await createdEvents();
    const results = await Promise.all(Array.from({ length: 20 }, () => sendLinkForm(s, visit)));
    const ids = new Set(results.map(location));
    expect(ids.size).toBe(1);
    const rows = await intentsOf(link.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe([...ids][0]);
    expect(await createdEvents()).toBe(before + 1);
  });

  it('refuses a form without its visit token, with another visit token or from another origin, and mints nothing', async () => {
    const link = await createLink({ title: 'Guarded', currency: 'KES', amount: '99.00' });
    const visit = await visitLink(s, link.url);
    const other = await visitLink(s, link.url);
    const otherLink = await createLink({ title: 'Other', currency: 'KES', amount: '99.00' });
    const foreign = await visitLink(s, otherLink.url);
    const cases = [
      sendLinkForm(s, visit, {}, { token: '' }),
      sendLinkForm(s, visit, {}, { cookie: '' }),
      sendLinkForm(s, visit, {}, { token: other.token }),
      sendLinkForm(s, visit, {}, { token: foreign.token, cookie: foreign.cookie }),
      sendLinkForm(s, visit, {}, { token: 'x.y', cookie: 'cowrie_link_visit=x.y' }),
      sendLinkForm(s, visit, {}, { headers: { origin: 'https://evil.example' } }),
    ];
    for (const r of await Promise.all(cases)) {
      expect(r.status).toBe(400);
      expect(r.text).toContain('gone stale');
      expect(r.text).toContain('name="visit"');
    }
    expect(await intentsOf(link.id)).toHaveLength(0);
    // JSON to the form is refused as any unknown media type would be
    const json = await publicCall(s, 'POST', pathOf(link.url), { body: { visit: visit.token } });
    expect(json.status).toBe(400);
    expect(await intentsOf(link.id)).toHaveLength(0);
  });

  it('a deactivated link shows a clear page and mints nothing; reactivated, it works again', async () => {
    const link = await createLink({ title: 'Paused', currency: 'KES', amount: '10.00' });
    const visit = await visitLink(s, link.url);
    const off = await s.sandbox('POST', `/payment-links/${link.id}`, { body: { active: false } });
    expect(off.status, off.text).toBe(200);
    expect(off.json).toMatchObject({ active: false, status: 'inactive' });
    const page = await visitLink(s, link.url);
    expect(page.status).toBe(410);
    expect(page.text).toContain('This payment link is not active');
    expect((await sendLinkForm(s, visit)).status).toBe(410);
    expect(await intentsOf(link.id)).toHaveLength(0);
    const on = await s.sandbox('POST', `/payment-links/${link.id}`, { body: { active: true } });
    expect(on.json).toMatchObject({ active: true, status: 'active' });
    expect(location(await sendLinkForm(s, visit))).toMatch(/^pi_/);
  });

  it('an unknown link is 404 on GET and POST', async () => {
    expect((await publicCall(s, 'GET', '/pay/pl_000000000000000000000000')).status).toBe(404);
    const r = await fetch(s.url('test', '/pay/pl_000000000000000000000000'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'visit=a.b',
      redirect: 'manual',
    });
    expect(r.status).toBe(404);
  });
});
