// `cowrie secrets rotate` seals every stored webhook secret with a new key in one transaction, and
// deliveries still verify with the secrets shown at creation; migration 0018 seals the secrets an earlier
// version stored in plain text; a secret left in plain text afterwards stops the start until the rotation
// seals it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf, parseSecretsKey } from '../src/shared/secret-box.js';
import { ENGINE, createTestDatabase, type TestDatabase, type TestServer } from './helpers/harness.js';
import { KEY_A, KEY_B, cowrie, createEndpoint, expectVerifiedDelivery, serverOn, storedSecret } from './helpers/secrets.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { migrationsOf } from '../src/db/migrate.js';

describe(`rotating the webhook secrets key (${ENGINE})`, () => {
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
  const keyIdIn = (stored: string) => stored.split(':')[1];

  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterEach(stopAll);
  afterAll(async () => {
    await rx?.close();
    for (const d of databases) await d.drop();
  });

  it('--new-key reseals every secret under the new key; the server with the new key delivers, the old key is refused', async () => {
    const url = await fresh();
    const s = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    const eps = [await createEndpoint(s, rx), await createEndpoint(s, rx)];
    const deleted = await createEndpoint(s, rx);
    const del = await s.call('test', 'DELETE', `/webhook_endpoints/${deleted.id}`, { key: deleted.key });
    expect(del.status, del.text).toBe(200);
    const before = await Promise.all([...eps, deleted].map((e) => storedSecret(s, e.id)));
    await stopAll();

    const r = await cowrie(url, { COWRIE_SECRETS_KEY: KEY_A }, 'secrets', 'rotate', '--new-key', KEY_B, '--json');
    expect(r, r.err).toMatchObject({ code: 0, err: '' });
    const out = JSON.parse(r.out);
    const newId = keyIdOf(parseSecretsKey(KEY_B));
    expect(out).toEqual({ object: 'secrets_rotation', key_id: newId, resealed: 3, sealed_from_plain_text: 0, key_file: null });

    const s2 = await start(url, { COWRIE_SECRETS_KEY: KEY_B });
    const after = await Promise.all([...eps, deleted].map((e) => storedSecret(s2, e.id)));
    for (const [i, stored] of after.entries()) {
      expect(stored).not.toBe(before[i]);
      expect(keyIdIn(stored)).toBe(newId);
    }
    for (const ep of eps) await expectVerifiedDelivery(s2, rx, ep);
    await stopAll();
    await expect(serverOn(url, { COWRIE_SECRETS_KEY: KEY_A })).rejects.toThrow(/which this process does not have/);
  });

  it('a rotation that cannot open a secret changes nothing and says why', async () => {
    const url = await fresh();
    const s = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    const ep = await createEndpoint(s, rx);
    const before = await storedSecret(s, ep.id);
    await stopAll();
    const r = await cowrie(url, { COWRIE_SECRETS_KEY: KEY_B }, 'secrets', 'rotate', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).error).toMatchObject({ code: 'secrets_key_invalid' });
    expect(JSON.parse(r.out).error.message).toMatch(/^nothing was changed: the stored secret was sealed with key/);
    const again = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    expect(await storedSecret(again, ep.id)).toBe(before);
    await expectVerifiedDelivery(again, rx, ep);
  });

  it('secrets stored in plain text by an earlier version are sealed by the migration; one left later stops the start until rotate seals it', async () => {
    const url = await fresh();
    const s = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    const ep = await createEndpoint(s, rx);
    const db = s.running.database.db;
    // The database as the earlier version left it: the secret in plain text, migration 0018 and those after
    // it not applied (every later one undone, newest first).
    await db.updateTable('webhook_endpoints').set({ secret: ep.secret }).where('id', '=', ep.id).execute();
    const later = Object.entries(migrationsOf({})).filter(([name]) => name >= '0019');
    for (const [name, m] of later.reverse()) {
      if (!m.down) throw new Error(`migration ${name} cannot be undone`);
      await m.down(db);
    }
    await sql`delete from kysely_migration where name >= '0018'`.execute(db);
    await stopAll();

    const migrated = await start(url, { COWRIE_SECRETS_KEY: KEY_A });
    expect(await storedSecret(migrated, ep.id)).toMatch(/^v1:/);
    await expectVerifiedDelivery(migrated, rx, ep);
    await migrated.running.database.db.updateTable('webhook_endpoints').set({ secret: ep.secret }).where('id', '=', ep.id).execute();
    await stopAll();

    await expect(serverOn(url, { COWRIE_SECRETS_KEY: KEY_A })).rejects.toThrow(/stored in plain text/);
    const r = await cowrie(url, { COWRIE_SECRETS_KEY: KEY_A }, 'secrets', 'rotate', '--json');
    expect(r, r.err).toMatchObject({ code: 0 });
    expect(JSON.parse(r.out)).toMatchObject({ resealed: 1, sealed_from_plain_text: 1 });
    await expectVerifiedDelivery(await start(url, { COWRIE_SECRETS_KEY: KEY_A }), rx, ep);
  });

  if (ENGINE === 'sqlite') {
    it('with the key file: rotate makes a new key, writes it to the file and reseals; a restart delivers', async () => {
      const url = await fresh();
      const file = join(dirname(url.slice('sqlite:'.length)), 'cowrie-secrets.key');
      const s = await start(url);
      const ep = await createEndpoint(s, rx);
      const oldKey = readFileSync(file, 'utf8').trim();
      await stopAll();

      const r = await cowrie(url, {}, 'secrets', 'rotate');
      expect(r, r.err).toMatchObject({ code: 0, err: '' });
      expect(r.out).toContain(`now holds only the new key`);
      const newKey = readFileSync(file, 'utf8').trim();
      expect(newKey).not.toBe(oldKey);
      expect(newKey.split('\n')).toHaveLength(1);

      const s2 = await start(url);
      expect(keyIdIn(await storedSecret(s2, ep.id))).toBe(keyIdOf(parseSecretsKey(newKey)));
      await expectVerifiedDelivery(s2, rx, ep);
    });
  }
});
