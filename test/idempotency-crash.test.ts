// Exactly one intent per Idempotency-Key across a kill -9 under load: creates with distinct keys run 40 at a
// time against a real server process, which is killed mid-load; after a restart every key is tried again
// until it is answered. A key whose intent committed replays that intent (its response was saved in the
// intent's own transaction); a key whose request died before anything committed creates its intent once,
// after its mark lapses. Several rounds on both engines; no key ever has two intents.
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';

const KEYS = 600;
const CONCURRENCY = 40;
const ROUNDS = 2;

interface Answer {
  status: number;
  id?: string;
  code?: string;
}

async function createWithKey(port: number, apiKey: string, idemKey: string): Promise<Answer | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': idemKey },
      body: JSON.stringify({ amount: '12.00', currency: 'USD', merchant_reference: idemKey }),
    });
    const body = (await res.json()) as { id?: string; error?: { code: string } };
    return { status: res.status, ...(body.id ? { id: body.id } : {}), ...(body.error ? { code: body.error.code } : {}) };
  } catch {
    return null; // the server died with the request in flight
  }
}

describe(`Idempotency-Key across kill -9 (${ENGINE})`, () => {
  const procs: ServerProcess[] = [];
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    for (const d of dbs) await d.drop();
  });

  for (let round = 1; round <= ROUNDS; round++) {
    it(`round ${round}: ${KEYS} keys, a kill mid-load, every key retried: one intent per key`, async () => {
      const db = await createTestDatabase();
      dbs.push(db);
      const [live, sandbox] = (await freePorts(2)) as [number, number];
      const env = { COWRIE_LIVE_PORT: String(live), COWRIE_SANDBOX_PORT: String(sandbox), COWRIE_IDEMPOTENCY_LOCK_S: '2' };
      let server = await spawnServer(db.url, env);
      procs.push(server);
      await server.ready;
      const apiKey = server.demoKey()!;
      const keys = Array.from({ length: KEYS }, (_, i) => `crash-${round}-${i}`);
      const first = new Map<string, Answer>();

      // The load, killed once a random share of it has been answered (so the kill lands mid-flight).
      const killAfter = Math.floor(KEYS * (0.25 + Math.random() * 0.4));
      let next = 0;
      let killed = false;
      const victim = server;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < keys.length && !killed) {
            const key = keys[next++]!;
            const answer = await createWithKey(sandbox, apiKey, key);
            if (answer) first.set(key, answer);
            if (!killed && first.size >= killAfter) {
              killed = true;
              await killHard(victim);
            }
          }
        }),
      );
      expect(killed).toBe(true);

      server = await spawnServer(db.url, env);
      procs.push(server);
      await server.ready;
      const final = new Map<string, Answer>();
      const deadline = Date.now() + 60_000;
      let pending = [...keys];
      while (pending.length > 0) {
        expect(Date.now(), `${pending.length} keys still unanswered`).toBeLessThan(deadline);
        const answers = await Promise.all(pending.map((k) => createWithKey(sandbox, apiKey, k)));
        const again: string[] = [];
        answers.forEach((a, i) => {
          if (a && a.status === 201) final.set(pending[i]!, a);
          else {
            // Only a request that died before its intent committed is still marked in progress (until it lapses).
            expect(a?.code, JSON.stringify(a)).toBe('idempotency_in_progress');
            again.push(pending[i]!);
          }
        });
        pending = again;
        if (pending.length > 0) await new Promise((r) => setTimeout(r, 250)); // the marks lapse after 2 s
      }

      // Every key answered before the kill is replayed with the same intent.
      for (const [key, answer] of first) if (answer.status === 201) expect(final.get(key)!.id, key).toBe(answer.id);
      const check = openDatabase(db.url);
      try {
        const rows = await check.db
          .selectFrom('payment_intents')
          .select(['id', 'merchant_reference'])
          .where('merchant_reference', 'like', `crash-${round}-%`)
          .execute();
        const perKey = new Map<string, string[]>();
        for (const r of rows) perKey.set(r.merchant_reference!, [...(perKey.get(r.merchant_reference!) ?? []), r.id]);
        const doubled = [...perKey].filter(([, ids]) => ids.length > 1);
        expect(doubled, 'keys with more than one intent').toEqual([]);
        expect(rows).toHaveLength(KEYS);
        for (const key of keys) expect(perKey.get(key), key).toEqual([final.get(key)!.id]);
      } finally {
        await check.close();
      }
    }, 180_000);
  }
});
