// A payment link page's form mints at most 30 intents a minute per client address, across every link: the
// 31st answers a 429 page with Retry-After and mints nothing; another address still mints; opening pages and
// going back to an intent already minted spend nothing. The client address is X-Forwarded-For from the
// trusted proxy (COWRIE_TRUST_PROXY), as the API sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendLinkForm, visitLink, type LinkVisit } from './helpers/checkout.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

describe(`payment link minting per client address (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => s?.stop());

  async function createLink(body: Record<string, unknown>): Promise<any> {
    const r = await s.sandbox('POST', '/payment-links', { body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }
  const intentsOf = async (linkIds: string[]) =>
    Number(
      (
        await s.running.database.db
          .selectFrom('payment_intents')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('payment_link', 'in', linkIds)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const from = (address: string) => ({ 'x-forwarded-for': address });

  /** Opens the link's page and sends its form, both from `address`. */
  async function visitAndSend(url: string, address: string, amount?: string) {
    const visit = await visitLink(s, url, { headers: from(address) });
    expect(visit.status, visit.text.slice(0, 200)).toBe(200);
    const sent = await sendLinkForm(s, visit, amount === undefined ? {} : { amount }, { headers: from(address) });
    return { visit, sent };
  }

  it('the 31st mint from one address in a minute answers 429 with Retry-After and mints nothing; another address still mints', async () => {
    const fixed = await createLink({ title: 'Ticket', currency: 'KES', amount: '100.00' });
    const open = await createLink({ title: 'Tip jar', currency: 'USD' });
    const links = [fixed.id, open.id];
    const visits: LinkVisit[] = [];
    // Pages opened from the address spend nothing.
    for (let i = 0; i < 40; i++) expect((await visitLink(s, fixed.url, { headers: from('203.0.113.7') })).status).toBe(200);
    for (let i = 0; i < 30; i++) {
      const { visit, sent } = await visitAndSend(i % 2 === 0 ? fixed.url : open.url, '203.0.113.7', i % 2 === 0 ? undefined : '5.00');
      expect(sent.status, `mint ${i + 1}: ${sent.text.slice(0, 200)}`).toBe(303);
      visits.push(visit);
    }
    expect(await intentsOf(links)).toBe(30);

    const { sent: refused } = await visitAndSend(fixed.url, '203.0.113.7');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter)).toBe(true);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(refused.text).toContain('Too many payments started');
    expect(refused.text).toContain('nothing was charged');
    expect(refused.headers.get('location')).toBeNull();
    expect(await intentsOf(links)).toBe(30);
    // On the other link too: the budget is the address's, across links.
    expect((await visitAndSend(open.url, '203.0.113.7', '7.00')).sent.status).toBe(429);
    expect(await intentsOf(links)).toBe(30);

    // Sending a visit's form again goes back to its intent: nothing new is minted, so it is not refused.
    const again = await sendLinkForm(s, visits[0]!, {}, { headers: from('203.0.113.7') });
    expect(again.status).toBe(303);

    // Another address mints at once, on either link.
    const other = await visitAndSend(fixed.url, '198.51.100.20');
    expect(other.sent.status, other.sent.text.slice(0, 200)).toBe(303);
    expect((await visitAndSend(open.url, '198.51.100.20', '3.00')).sent.status).toBe(303);
    expect(await intentsOf(links)).toBe(32);
  });

  it('IPv6 addresses count by their /64', async () => {
    const link = await createLink({ title: 'Six', currency: 'KES', amount: '10.00' });
    for (let i = 0; i < 30; i++) {
      const { sent } = await visitAndSend(link.url, `2001:db8:1:2::${(i + 1).toString(16)}`);
      expect(sent.status, `mint ${i + 1}`).toBe(303);
    }
    expect((await visitAndSend(link.url, '2001:db8:1:2:ffff::1')).sent.status).toBe(429);
    expect((await visitAndSend(link.url, '2001:db8:1:3::1')).sent.status).toBe(303);
    expect(await intentsOf([link.id])).toBe(31);
  });
});
