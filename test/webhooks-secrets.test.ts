// Webhook endpoint secrets are stored sealed (AES-256-GCM) with the operator's key: the database never holds
// the secret; deliveries are signed with the secret shown at creation, also after a restart with the same
// key and after the console rotates it; a start with another key is refused with a clear error; on
// PostgreSQL a start without COWRIE_SECRETS_KEY is refused; on SQLite without it a key file is made beside
// the database (mode 0600) and named in the start-up log.
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, createTestDatabase, type TestDatabase, type TestServer } from './helpers/harness.js';
import type { Config } from '../src/config.js';
import { loadSecretsKeys } from '../src/secrets-key.js';
import { KEY_A, KEY_B, createEndpoint, expectVerifiedDelivery, serverOn, storedSecret } from './helpers/secrets.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

describe(`webhook secrets sealed at rest (${ENGINE})`, () => {
  let rx: Receiver;
  const databases: TestDatabase[] = [];
  const servers: TestServer[] = [];
  const fresh = async () => {
    const d = await createTestDatabase();
    databases.push(d);
    return d.url;
  };
  const start = async (url: string, env: Record<string, string> = {}) => {
    const s = await serverOn(url, env);
    servers.push(s);
    return s;
  };
  const stopAll = async () => {
    for (const s of servers.splice(0)) await s.stop();
  };

  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterEach(stopAll);
  afterAll(async () => {
    await rx?.close();
    for (const d of databases) await d.drop();
  });

  it('an endpoint made with an Idempotency-Key: its saved response is sealed too, and the replay shows the same secret', async () => {
    const s = await start(await fresh(), { COWRIE_SECRETS_KEY: KEY_A });
    const send = () =>
      s.sandbox('POST', '/webhook_endpoints', { body: { url: `${rx.url}/idem` }, headers: { 'idempotency-key': 'endpoint-once' } });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const secret = first.json.secret as string;
    expect(secret).toMatch(/^cwk_whsec_/);
    const row = await s.running.database.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('idem_key', '=', 'endpoint-once')
      .executeTakeFirstOrThrow();
    expect(row.response_body).not.toContain(secret.slice('cwk_whsec_'.length));
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('the stored value is sealed, not the secret; deliveries verify with the secret shown at creation', async () => {
    const s = await start(await fresh(), { COWRIE_SECRETS_KEY: KEY_A });
    const ep = await createEndpoint(s, rx);
    const stored = await storedSecret(s, ep.id);
    expect(stored).not.toContain(ep.secret);
    expect(stored).not.toContain(ep.secret.slice('cwk_whsec_'.length));
    expect(stored).toMatch(/^v1:[0-9a-f]{16}:[A-Za-z0-9_-]+$/);
    // Two endpoints never share a stored value, even with the same secret: each value has its own nonce.
    const other = await createEndpoint(s, rx);
    expect((await storedSecret(s, other.id)).split(':')[2]).not.toBe(stored.split(':')[2]);
    await expectVerifiedDelivery(s, rx, ep);
  });

  it('a restart with the same key works; a start with another key is refused with a clear error', async () => {
    const url = await fresh();
    const first = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    const ep = await createEndpoint(first, rx);
    await stopAll();

    const again = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    await expectVerifiedDelivery(again, rx, ep);
    await stopAll();

    await expect(serverOn(url, { COWRIE_SECRETS_KEY: KEY_B })).rejects.toThrow(
      /webhook endpoint secrets in the database were sealed with key [0-9a-f]{16}, which this process does not have/,
    );
    // Both keys (the new one first, as during a rotation) open them.
    const both = await start(url, { COWRIE_SECRETS_KEY: `${KEY_B},${KEY_A}` });
    await expectVerifiedDelivery(both, rx, ep);
  });

  it('a key that is not 32 bytes of base64 or hex is refused, naming the variable', async () => {
    const url = await fresh();
    for (const bad of ['short', Buffer.alloc(16).toString('base64'), 'z'.repeat(64), `${KEY_A},${KEY_A}`]) {
      await expect(serverOn(url, { COWRIE_SECRETS_KEY: bad })).rejects.toThrow(/COWRIE_SECRETS_KEY/);
    }
  });

  it('a secret rotated in the console signs the next deliveries; the stored value changes and stays sealed', async () => {
    const s = await start(await fresh(), { COWRIE_SECRETS_KEY: KEY_A });
    const ep = await createEndpoint(s, rx);
    const before = await storedSecret(s, ep.id);
    const merchant = (await s.running.database.db
      .selectFrom('webhook_endpoints')
      .select('merchant_id')
      .where('id', '=', ep.id)
      .executeTakeFirstOrThrow())!.merchant_id;
    const rotated = await s.running.services.webhooks.rotateSecret({ merchantId: merchant, environment: 'test' }, ep.id);
    expect(rotated.secret).not.toBe(ep.secret);
    const after = await storedSecret(s, ep.id);
    expect(after).not.toBe(before);
    expect(after).not.toContain(rotated.secret);
    await expectVerifiedDelivery(s, rx, ep, rotated.secret);
  });

  if (ENGINE === 'postgres') {
    it('without COWRIE_SECRETS_KEY the server refuses to start, saying why', async () => {
      await expect(serverOn(await fresh(), { COWRIE_SECRETS_KEY: '' })).rejects.toThrow(
        /COWRIE_SECRETS_KEY is not set\. With PostgreSQL it is required/,
      );
    });
  } else {
    it('without COWRIE_SECRETS_KEY a key file is made beside the database (0600), named in the log, and used again', async () => {
      const url = await fresh();
      const file = join(dirname(url.slice('sqlite:'.length)), 'cowrie-secrets.key');
      expect(existsSync(file)).toBe(false);
      const s = await start(url);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const logged = s.logs.find((l) => l['key_file'] === file);
      expect(logged?.['msg']).toMatch(/created the webhook secrets key file/);
      const ep = await createEndpoint(s, rx);
      await stopAll();

      const again = await start(url);
      expect(again.logs.find((l) => l['key_file'] === file)?.['msg']).toBe('webhook secrets key read from its file');
      await expectVerifiedDelivery(again, rx, ep);
      await stopAll();

      // Another key in the file: refused, as with the variable.
      writeFileSync(file, `${Buffer.alloc(32, 9).toString('base64')}\n`, { mode: 0o600 });
      await expect(serverOn(url)).rejects.toThrow(/sealed with key [0-9a-f]{16}, which this process does not have/);
    });

    it('a database in a folder that does not exist yet (npm start on a fresh checkout): the key file is made there, folder and all', () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'cowrie-key-')), 'data');
      const loaded = loadSecretsKeys({ databaseUrl: `sqlite:${join(dir, 'cowrie.db')}`, secretsKeys: [] } as unknown as Config);
      expect(loaded.source).toMatchObject({ kind: 'file', path: join(dir, 'cowrie-secrets.key'), created: true });
      expect(loaded.keys).toHaveLength(1);
      expect(statSync(join(dir, 'cowrie-secrets.key')).mode & 0o777).toBe(0o600);
    });
  }
});
