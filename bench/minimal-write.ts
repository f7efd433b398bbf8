// The yardstick for create intent: the same work written directly, with nothing else. A Fastify endpoint
// that authenticates a bearer key (SHA-256 of it looked up in a keys table; on PostgreSQL the keys of one
// event-loop turn by one query, as Cowrie batches them), validates the body by a JSON
// schema, and writes an intent and its event in one transaction, group-committed (the requests of one
// event-loop turn share a transaction), answering 201 with the intent only after the commit.
// `node --import tsx bench/minimal-write.ts` with BENCH_DATABASE_URL (`sqlite:PATH`, the same pragmas as
// Cowrie's, or `postgres://…`) and PORT; it prints `listening <port> key <key>`.
import { createHash, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { SQLite } from '../src/db/sqlite-driver.js';

const url = process.env['BENCH_DATABASE_URL'] ?? 'sqlite::memory:';
const KEY = `bench_sk_${randomBytes(12).toString('hex')}`;
const hash = (text: string) => createHash('sha256').update(text).digest('hex');

interface Intent {
  id: string;
  object: 'payment_intent';
  status: 'awaiting_payment';
  amount: string;
  currency: string;
  description: string | null;
  merchant_reference: string | null;
  created_at: string;
  livemode: false;
}

const SCHEMA = `
  create table keys (hash text primary key, merchant_id text not null);
  create table intents (id text primary key, merchant_id text not null, status text not null, amount text not null,
    currency text not null, description text, merchant_reference text, created_at bigint not null);
  create table events (id text primary key, merchant_id text not null, type text not null, payload text not null,
    created_at bigint not null);`;

/** Writes the groups' rows; finds a key's merchant. */
interface Store {
  merchantOf(keyHash: string): Promise<string | undefined>;
  write(rows: Array<{ merchantId: string; intent: Intent; now: number }>): Promise<void>;
}

function sqliteStore(path: string): Store {
  const db = new SQLite(path);
  for (const p of ['journal_mode = WAL', 'synchronous = NORMAL', 'cache_size = -4096']) db.pragma(p);
  db.exec(SCHEMA);
  db.prepare('insert into keys values (?, ?)').run(hash(KEY), 'mer_bench');
  const findKey = db.prepare('select merchant_id from keys where hash = ?').pluck();
  const insertIntent = db.prepare('insert into intents values (?, ?, ?, ?, ?, ?, ?, ?)');
  const insertEvent = db.prepare('insert into events values (?, ?, ?, ?, ?)');
  const writeAll = db.transaction((rows: Parameters<Store['write']>[0]) => {
    for (const { merchantId, intent, now } of rows) {
      insertIntent.run(
        intent.id,
        merchantId,
        intent.status,
        intent.amount,
        intent.currency,
        intent.description,
        intent.merchant_reference,
        now,
      );
      insertEvent.run(`evt_${randomBytes(12).toString('hex')}`, merchantId, 'payment_intent.created', JSON.stringify(intent), now);
    }
  });
  return { merchantOf: async (h) => findKey.get(h) as string | undefined, write: async (rows) => writeAll(rows) };
}

async function postgresStore(connectionString: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  await pool.query(SCHEMA);
  await pool.query('insert into keys values ($1, $2)', [hash(KEY), 'mer_bench']);
  // The keys asked for in one turn of the event loop are looked up by one query, as Cowrie does (a query
  // per request made this yardstick slower than Cowrie on PostgreSQL).
  let asked: Array<{ hash: string; resolve: (m: string | undefined) => void; reject: (e: unknown) => void }> = [];
  const lookUp = () => {
    const batch = asked;
    asked = [];
    pool
      .query<{ hash: string; merchant_id: string }>('select hash, merchant_id from keys where hash = any($1)', [
        [...new Set(batch.map((a) => a.hash))],
      ])
      .then(
        ({ rows }) => {
          const found = new Map(rows.map((r) => [r.hash, r.merchant_id]));
          for (const a of batch) a.resolve(found.get(a.hash));
        },
        (err: unknown) => batch.forEach((a) => a.reject(err)),
      );
  };
  return {
    merchantOf: (h) =>
      new Promise((resolve, reject) => {
        if (asked.length === 0) setImmediate(lookUp);
        asked.push({ hash: h, resolve, reject });
      }),
    async write(rows) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const n = rows.length;
        await client.query(
          `insert into intents select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[])`,
          [
            rows.map((r) => r.intent.id),
            rows.map((r) => r.merchantId),
            rows.map((r) => r.intent.status),
            rows.map((r) => r.intent.amount),
            rows.map((r) => r.intent.currency),
            rows.map((r) => r.intent.description),
            rows.map((r) => r.intent.merchant_reference),
            rows.map((r) => r.now),
          ],
        );
        await client.query(`insert into events select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])`, [
          Array.from({ length: n }, () => `evt_${randomBytes(12).toString('hex')}`),
          rows.map((r) => r.merchantId),
          rows.map(() => 'payment_intent.created'),
          rows.map((r) => JSON.stringify(r.intent)),
          rows.map((r) => r.now),
        ]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

/** Group commit: what is submitted in one turn of the event loop commits together, up to `maxRunning` groups at once. */
function groupCommit(store: Store, maxRunning: number) {
  type Item = Parameters<Store['write']>[0][number] & { done: (err?: unknown) => void };
  let group: Item[] = [];
  let scheduled = false;
  let running = 0;
  const flush = () => {
    scheduled = false;
    if (group.length === 0) return;
    if (running >= maxRunning) return;
    const items = group;
    group = [];
    running++;
    store
      .write(items)
      .then(
        () => items.forEach((i) => i.done()),
        (err: unknown) => items.forEach((i) => i.done(err)),
      )
      .finally(() => {
        running--;
        if (group.length > 0 && !scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
  };
  return (row: Parameters<Store['write']>[0][number]) =>
    new Promise<void>((resolve, reject) => {
      group.push({ ...row, done: (err) => (err ? reject(err as Error) : resolve()) });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

const store = url.startsWith('postgres') ? await postgresStore(url) : sqliteStore(url.slice('sqlite:'.length));
const write = groupCommit(store, url.startsWith('postgres') ? 5 : 1);

const app = Fastify({ logger: false });
const intentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string' },
    status: { type: 'string' },
    amount: { type: 'string' },
    currency: { type: 'string' },
    description: { type: ['string', 'null'] },
    merchant_reference: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    livemode: { type: 'boolean' },
  },
} as const;
app.post<{ Body: { amount: string; currency: string; description?: string; merchant_reference?: string } }>(
  '/v1/payment-intents',
  {
    schema: {
      body: {
        type: 'object',
        required: ['amount', 'currency'],
        additionalProperties: false,
        properties: {
          amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 32 },
          currency: { type: 'string', enum: ['KES', 'USD', 'EUR', 'NGN'] },
          description: { type: 'string', maxLength: 500 },
          merchant_reference: { type: 'string', maxLength: 255 },
        },
      },
      response: { 201: intentSchema },
    },
  },
  async (request, reply) => {
    const auth = request.headers.authorization;
    const merchantId = auth?.startsWith('Bearer ') ? await store.merchantOf(hash(auth.slice(7))) : undefined;
    if (!merchantId) return reply.code(401).send({ error: 'unauthorized' });
    const now = Date.now();
    const body = request.body;
    const intent: Intent = {
      id: `pi_${randomBytes(12).toString('hex')}`,
      object: 'payment_intent',
      status: 'awaiting_payment',
      amount: body.amount,
      currency: body.currency,
      description: body.description ?? null,
      merchant_reference: body.merchant_reference ?? null,
      created_at: new Date(now).toISOString(),
      livemode: false,
    };
    await write({ merchantId, intent, now });
    return reply.code(201).send(intent);
  },
);
const port = Number(process.env['PORT'] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`listening ${(app.server.address() as { port: number }).port} key ${KEY}\n`);
