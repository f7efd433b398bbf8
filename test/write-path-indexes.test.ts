// The indexes a create writes are the ones the queries read (migration 0024): each query that reads the
// events and payment-intent indexes is run as the code compiles it, and the engine's plan for it must use
// its index. On PostgreSQL sequential scans are switched off for the session, so an index the planner could
// not use shows up as a sequential scan however small the tables are.
import { CompiledQuery, sql, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import type { DB } from '../src/db/schema.js';
import * as feed from '../src/modules/event-feed/event-feed.repo.js';
import * as consoleRepo from '../src/modules/console/console.repo.js';
import * as search from '../src/modules/console/payment-search.repo.js';
import * as paid from '../src/modules/payment-intents/paid-payments.repo.js';
import * as intents from '../src/modules/payment-intents/payment-intents.repo.js';
import * as webhookEvents from '../src/modules/webhooks/webhook-events.repo.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';

const scope = { merchantId: 'mer_x', environment: 'test' as const };
const window = { startMs: 1_000, endMs: 2_000 };

describe(`the write path's indexes are the ones its queries read (${ENGINE})`, () => {
  let database: TestDatabase;
  let opened: Database;
  let db: Kysely<DB>;
  const seen: CompiledQuery[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    opened = openDatabase(database.url, { poolSize: 1 });
    // Every query the repositories run is kept as compiled, to be explained afterwards.
    const capture: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        seen.push(opened.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    db = opened.db.withPlugin(capture);
    if (ENGINE === 'postgres') await sql`set enable_seqscan = off`.execute(opened.db);
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  /** The plan of the one query `run` makes, as text. */
  async function planOf(run: () => Promise<unknown>): Promise<string> {
    seen.length = 0;
    await run();
    expect(seen.length).toBe(1);
    const q = seen[0]!;
    const explain = ENGINE === 'postgres' ? `explain ${q.sql}` : `explain query plan ${q.sql}`;
    const result = await opened.db.executeQuery(CompiledQuery.raw(explain, [...q.parameters]));
    return result.rows.map((r) => Object.values(r as object).join(' ')).join('\n');
  }

  it.each([
    // Both partial indexes of paid payments begin with their time: either serves the count.
    ['the payments report count', /payment_intents_(paid|volume)/, () => paid.countPaidPayments(db, scope, window)],
    ['the payments report page', 'payment_intents_paid', () => paid.paidPaymentsPage(db, scope, window, { at: 1500, id: 'pi_x' }, 100)],
    ["a link's paid count", 'payment_intents_link', () => intents.countPaidIntentsOfLink(db, 'plink_x')],
    ['the paid counts of a page of links', 'payment_intents_link', () => intents.countPaidIntentsOfLinks(db, ['plink_x', 'plink_y'])],
    ['the event feed after an event', 'events_feed', () => feed.feedRows(db, scope, { after: { txid: 0, seq: 1 }, limit: 10 })],
    ['the event feed, newest first', 'events_feed', () => feed.feedRows(db, scope, { after: null, limit: 10 })],
    ['the webhook events list', 'events_created', () => webhookEvents.listEvents(db, scope, { cursor: null, limit: 10 })],
    ["an intent's timeline", 'events_intent', () => consoleRepo.eventIdsOfIntent(db, scope, 'pi_x')],
    [
      'the console search by email',
      'payment_intents_customer_email',
      () => search.filteredIntentIds(db, scope, { search: { email: ['a@b.co'] } }, null, 10),
    ],
    [
      'the console search by phone, after a cursor',
      'payment_intents_customer_phone',
      () => search.filteredIntentIds(db, scope, { search: { phone: ['+254700000001'] } }, { created_at: 1_500, id: 'pi_x' }, 10),
    ],
    ['the console filter by method', 'payment_intents_method', () => search.filteredIntentIds(db, scope, { method: 'mpesa' }, null, 10)],
    ["the console home's paid volume", 'payment_intents_volume', () => search.paidVolume(db, scope, 1_000)],
  ])('%s reads %s', async (_what, index, run) => {
    const plan = await planOf(run);
    expect(plan, plan).toMatch(index);
    expect(plan, plan).not.toMatch(/Seq Scan|SCAN payment_intents$|SCAN events$/m);
  });

  it('the unused events_merchant index is gone; the partial ones hold only rows a query can find', async () => {
    const names =
      ENGINE === 'postgres'
        ? (
            await sql<{
              name: string;
              def: string;
            }>`select indexname as name, indexdef as def from pg_indexes where tablename in ('events', 'payment_intents')`.execute(
              opened.db,
            )
          ).rows
        : (
            await sql<{
              name: string;
              def: string;
            }>`select name, sql as def from sqlite_master where type = 'index' and tbl_name in ('events', 'payment_intents') and sql is not null`.execute(
              opened.db,
            )
          ).rows;
    const byName = new Map(names.map((r) => [r.name, r.def]));
    expect(byName.has('events_merchant')).toBe(false);
    expect(byName.get('payment_intents_paid')).toMatch(/where.*paid_at.* is not null/i);
    expect(byName.get('payment_intents_link')).toMatch(/where.*payment_link.* is not null/i);
    // The console's search indexes (migration 0029): a new intent without a customer writes none of them.
    expect(byName.get('payment_intents_customer_email')).toMatch(/where.*email.* is not null/i);
    expect(byName.get('payment_intents_customer_phone')).toMatch(/where.*phone.* is not null/i);
    expect(byName.get('payment_intents_method')).toMatch(/where.*payment_method.* is not null/i);
    expect(byName.get('payment_intents_volume')).toMatch(/where.*paid_at.* is not null/i);
  });
});
