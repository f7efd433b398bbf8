// Metadata: every resource that takes it accepts any JSON object within the limits, stores it and echoes it
// exactly (key order, nesting, number spelling) on create, retrieve, list, webhooks and events; over a limit
// it is refused with `param` naming the path and nothing written.
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './helpers/wait.js';
import { ENGINE } from './helpers/harness.js';
import { mintFromLink } from './helpers/checkout.js';
import { serverAndReceiver } from './helpers/webhooks.js';

// Integer-like keys out of order (a JavaScript object would sort them first), numbers spelled as sent
// (trailing zero, exponent, past 2^53), every JSON type, unicode, and five levels of nesting.
const META =
  '{"z":1,"10":"ten","2":[1,2.50,-0.5,1e3,12345678901234567890],"order":{"id":7,"items":["a","b"],"gift":false,"note":null},' +
  '"ünï":"日本語 🎉 مرحبا","nested":{"l2":{"l3":{"l4":{"deep":true}}}}}';
// The same text with white space between its tokens (no string in META holds a comma, colon or brace).
const PRETTY = META.replace(/,/g, ',\n  ').replace(/:/g, ' : ').replace(/\{/g, '{\t');

interface Resource {
  name: string;
  path: string;
  table: 'payment_intents' | 'customers' | 'payment_links';
  body: string;
}

const RESOURCES: Resource[] = [
  { name: 'payment intents', path: '/payment-intents', table: 'payment_intents', body: '"amount":"10.00","currency":"USD"' },
  { name: 'customers', path: '/customers', table: 'customers', body: '"name":"Ada"' },
  { name: 'payment links', path: '/payment-links', table: 'payment_links', body: '"title":"Tea","currency":"KES","amount":"150.00"' },
];

describe(`metadata (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver({ COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1', COWRIE_WEBHOOK_BACKOFF_SCALE: '0.001' });

  beforeAll(async () => {
    const ep = await server().sandbox('POST', '/webhook_endpoints', { body: { url: receiver().url } });
    expect(ep.status, ep.text).toBe(201);
  });

  const post = (path: string, text: string) =>
    server().sandbox('POST', path, { raw: text, headers: { 'content-type': 'application/json' } });

  async function count(table: Resource['table']): Promise<number> {
    const row = await server()
      .running.database.db.selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  for (const res of RESOURCES) {
    describe(res.name, () => {
      it('round-trips nested objects, arrays, numbers, booleans, null and unicode exactly, white space dropped', async () => {
        const created = await post(res.path, `{${res.body},"metadata":${PRETTY}}`);
        expect(created.status, created.text).toBe(201);
        expect(created.text).toContain(`"metadata":${META}`);
        expect(created.json.metadata).toEqual(JSON.parse(META));
        const got = await server().sandbox('GET', `${res.path}/${created.json.id}`);
        expect(got.status).toBe(200);
        expect(got.text).toContain(`"metadata":${META}`);
        const row = await server()
          .running.database.db.selectFrom(res.table)
          .select('metadata')
          .where('id', '=', created.json.id)
          .executeTakeFirstOrThrow();
        expect(row.metadata).toBe(META);
        if (res.table !== 'payment_links') {
          const list = await server().sandbox('GET', `${res.path}?limit=1`);
          expect(list.json.data[0].id).toBe(created.json.id);
          expect(list.text).toContain(`"metadata":${META}`);
        }
      });

      it('an omitted metadata is {}; an empty object too', async () => {
        const a = await post(res.path, `{${res.body}}`);
        expect(a.status, a.text).toBe(201);
        expect(a.text).toContain('"metadata":{}');
        const b = await post(res.path, `{${res.body},"metadata":{ }}`);
        expect(b.text).toContain('"metadata":{}');
      });

      const refused = async (metadataText: string, param: string, message: RegExp) => {
        const before = await count(res.table);
        const r = await post(res.path, `{${res.body},"metadata":${metadataText}}`);
        expect(r.status, r.text).toBe(400);
        expect(r.json.error.code).toBe('parameter_invalid');
        expect(r.json.error.param).toBe(param);
        expect(r.json.error.message).toMatch(message);
        expect(await count(res.table)).toBe(before);
      };
      const accepted = async (metadataText: string) => {
        const r = await post(res.path, `{${res.body},"metadata":${metadataText}}`);
        expect(r.status, r.text.slice(0, 300)).toBe(201);
        expect(r.text).toContain(`"metadata":${metadataText}`);
      };

      it('50 top-level keys are accepted, 51 refused', async () => {
        const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":{"n":${i}}`).join(',')}}`;
        await accepted(keys(50));
        await refused(keys(51), 'metadata', /at most 50 keys/);
      });

      it('top-level keys of 40 characters are accepted, 41 refused; an empty key refused', async () => {
        await accepted(`{"${'k'.repeat(40)}":1}`);
        await refused(`{"${'k'.repeat(41)}":1}`, `metadata.${'k'.repeat(41)}`, /1 to 40 characters/);
        await refused('{"":1}', 'metadata', /empty key/);
      });

      it('five levels of nesting are accepted, six refused at the path that goes too deep', async () => {
        await accepted('{"a":{"b":{"c":{"d":{"e":"five"}}}}}');
        await accepted('{"a":[[[["four arrays"]]]]}');
        await refused('{"a":{"b":{"c":{"d":{"e":{}}}}}}', 'metadata.a.b.c.d.e', /at most 5 levels/);
        await refused('{"order":{"items":[[["x",[[]]]]]}}', 'metadata.order.items[0][0][1]', /at most 5 levels/);
      });

      it('16 KiB of JSON text (bytes, not characters) is accepted, one byte more refused', async () => {
        // {"k":"…"} is 8 bytes around the value.
        await accepted(`{"k":"${'v'.repeat(16_384 - 8)}"}`);
        await refused(`{"k":"${'v'.repeat(16_384 - 7)}"}`, 'metadata', /16384 bytes/);
        // 8,189 two-byte characters: far fewer than 16,384 characters, one byte too many.
        await refused(`{"k":"${'é'.repeat(8_189)}"}`, 'metadata', /16384 bytes/);
        await accepted(`{"k":"${'é'.repeat(8_188)}"}`);
      });

      it('a NUL anywhere, or a key twice in one object, is refused with its path', async () => {
        await refused('{"order":{"items":["a","b\\u0000"]}}', 'metadata.order.items[1]', /NUL/);
        await refused('{"order":{"a\\u0000":1}}', 'metadata.order.a\u0000', /NUL/);
        await refused('{"order":{"id":1,"id":2}}', 'metadata.order.id', /twice/);
        await refused('[1]', 'metadata', /must be an object/);
        await refused('"x"', 'metadata', /must be an object/);
      });
    });
  }

  it('webhooks, the event feed and webhook events carry the metadata exactly', async () => {
    const created = await post('/payment-intents', `{"amount":"25.00","currency":"USD","metadata":${META}}`);
    expect(created.status, created.text).toBe(201);
    const delivered = await receiver().waitFor((r) => r.some((x) => x.body.includes(created.json.id)), 10_000, 'the created event');
    const body = delivered.find((x) => x.body.includes(created.json.id))!.body;
    expect(body).toContain(`"metadata":${META}`);
    const eventId = JSON.parse(body).id as string;

    // On PostgreSQL the feed shows an event once every writing transaction older than it has finished.
    const feed = await waitFor(
      'the created event in the feed',
      () => server().sandbox('GET', '/events?limit=5'),
      (r) => r.status === 200 && r.json.data.some((e: { id: string }) => e.id === eventId),
    );
    expect(feed.text).toContain(`"metadata":${META}`);
    const event = await server().sandbox('GET', `/webhook_events/${eventId}`);
    expect(event.status).toBe(200);
    expect(event.text).toContain(`"metadata":${META}`);
    expect(event.json.data.id).toBe(created.json.id);

    const paid = await server().sandbox('POST', `/sandbox/payment-intents/${created.json.id}/simulate`, {
      body: { outcome: 'success', payment_method: 'card' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.text).toContain(`"metadata":${META}`);
  });

  it("an intent minted by a payment link carries the link's metadata", async () => {
    const link = await post('/payment-links', `{"title":"Tea","currency":"KES","amount":"150.00","metadata":${META}}`);
    expect(link.status, link.text).toBe(201);
    const intentId = await mintFromLink(server(), link.json.url);
    const intent = await server().sandbox('GET', `/payment-intents/${intentId}`);
    expect(intent.json.payment_link).toBe(link.json.id);
    expect(intent.text).toContain(`"metadata":${META}`);
  });

  it('reports are unchanged: no metadata column', async () => {
    const r = await server().sandbox('GET', '/reports/payments?format=csv');
    expect(r.status).toBe(200);
    expect(r.text.split('\n')[0]).not.toContain('metadata');
  });

  it('the OpenAPI document says what metadata accepts', async () => {
    const r = await server().call('test', 'GET', '/v1/openapi.json');
    const doc = r.json;
    for (const path of ['/payment-intents', '/customers', '/payment-links']) {
      const schema = doc.paths[path].post.requestBody.content['application/json'].schema.properties.metadata;
      expect(schema).toMatchObject({ type: 'object', maxProperties: 50, propertyNames: { maxLength: 40 } });
      expect(schema.description).toMatch(/16 KiB/);
      expect(schema.description).toMatch(/5 levels/);
    }
  });
});
