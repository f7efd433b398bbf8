// One payer's payments racing in two server processes on one database (SQLite and PostgreSQL): the
// payer's row is the lock every payment from the balance takes first (the payees are three merchants), so exactly the payments that fit
// the balance succeed, the others are failed attempts `insufficient_funds`, and the balance never goes
// below zero, whichever process each request reaches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { ENGINE, createTestDatabase, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';
import { expectLedgerInvariant, newIntent } from './helpers/ledger-invariant.js';
import { killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { PAYER_PIN, WalletClient, adjust, signedUpPayer } from './helpers/wallet.js';

describe(`payments from one balance across processes (${ENGINE})`, { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let s: TestServer;
  let other: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    s = await startTestServer({ databaseUrl: database.url, noLiveRails: true, env: { COWRIE_PAYER_ACCOUNTS: 'on' } });
    other = await spawnServer(database.url, { COWRIE_PAYER_ACCOUNTS: 'on' });
    await other.ready;
  }, 60_000);
  afterAll(async () => {
    if (other) await killHard(other);
    await s?.stop();
    await database?.drop();
  });

  it('exactly the payments that fit succeed, split between two processes', async () => {
    const { client, payerId } = await signedUpPayer(s, 'race@payers.example');
    const elsewhere = new WalletClient(`http://127.0.0.1:${other.livePort}`);
    elsewhere.session = client.session;
    // Three merchants: a payment locks its merchant's row too, so only the payer's lock keeps these apart.
    const keys = [s.merchant.keys.live_secret!];
    for (const name of ['Second shop', 'Third shop']) keys.push((await s.newMerchant({ name, verified: true })).keys.live_secret!);
    const intents = await Promise.all(
      Array.from({ length: 12 }, (_, i) => newIntent(s, { amount: '5.00', currency: 'USD' }, 'live', keys[i % 3])),
    );
    const each = new Decimal(intents[0].pay_amount);
    const fund = each.mul(5).plus(each.div(3).toDecimalPlaces(6, Decimal.ROUND_DOWN));
    await adjust(s, payerId, fund.toFixed(6));
    const results = await Promise.all(intents.map((pi, i) => (i % 2 ? elsewhere : client).payFromBalance(pi.checkout_url, PAYER_PIN)));
    for (const r of results) expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(results.filter((r) => r.json.status === 'paid').length).toBe(5);
    expect(results.filter((r) => r.json.status === 'awaiting_payment').length).toBe(7);
    const balance = (await s.running.services.payerAccounts.wallet(payerId, 'live')).balances.USDT;
    expect(balance.toFixed(6)).toBe(fund.minus(each.mul(5)).toFixed(6));
    const failures = await s.running.database.db
      .selectFrom('payment_attempts')
      .select('failure_code')
      .where('payment_method', '=', 'service_balance')
      .where('outcome', '=', 'attempt_failed')
      .execute();
    expect(failures.map((f) => f.failure_code)).toEqual(Array(7).fill('insufficient_funds'));
    await expectLedgerInvariant(s.running.database.db);
  });
});
