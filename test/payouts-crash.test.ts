// Live EVM payouts across kill -9 (both engines): a real server process whose payout sender kills its own
// process at one step (COWRIE_TEST_PAYOUT_HALT, read only by tests): after the transfer was signed and
// recorded but before it was broadcast, after the broadcast but before the payout was marked sent, and
// while it was confirming. Restarted without the halt, the sender looks the recorded transfer up before it
// signs anything, and the payout is paid exactly once: one transfer on the chain, the address holding
// exactly the amount, one payout.sent and one payout.paid. And on PostgreSQL, payouts asked for at once
// through two server processes never overdraw: exactly the ones that fit are made.
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { createKey } from '../src/modules/merchants/index.js';
import { ACCOUNTS, transfer } from '../src/modules/ledger/index.js';
import { systemClock } from '../src/shared/clock.js';
import { ENGINE } from './helpers/harness.js';
import { payoutCrashSuite } from './helpers/payout-chain.js';
import { api, freePorts, killHard } from './helpers/server-process.js';

const CONFIRMATIONS = 2;

describe(`live payouts across kill -9 (${ENGINE})`, () => {
  let merchantId: string;
  let liveKey: string;
  /** Money the merchant can pay out, as a settled payment would leave it. */
  const fund = (environment: 'live' | 'test', amount: string) =>
    transfer(
      suite.check.db,
      { merchantId, environment, asset: 'USDT', kind: 'payment', at: Date.now() },
      ACCOUNTS.world,
      ACCOUNTS.available,
      new Decimal(amount),
    );
  const suite = payoutCrashSuite(CONFIRMATIONS, { COWRIE_PAYOUT_AUTO_APPROVE: '1000' }, async (first, check) => {
    const demo = await api(first.sandboxPort, first.demoKey()!, 'GET', '/auth/verify');
    merchantId = demo.json.merchant_id;
    await check.db.updateTable('merchants').set({ kyb_status: 'verified' }).where('id', '=', merchantId).execute();
    liveKey = (await createKey(check.db, systemClock, { merchantId, environment: 'live', type: 'secret' })).key;
    await fund('live', '500');
  });
  const eventsOf = async (id: string) =>
    (await suite.check.db.selectFrom('events').select(['type', 'payload']).where('type', 'like', 'payout.%').execute())
      .filter((e) => JSON.parse(e.payload).data.id === id)
      .map((e) => e.type);

  for (const step of ['recorded', 'broadcast', 'confirming'] as const) {
    it(`killed at "${step}": after a restart the payout is paid exactly once`, async () => {
      const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
      const hotBefore = await suite.base.balanceOf(suite.base.hot);
      const { row, recorded } = await suite.killedAt(step, to, async (halting) => {
        const r = await api(halting.livePort, liveKey, 'POST', '/payouts', { amount: '3.5', asset: 'USDT', network: 'BASE', address: to });
        expect(r.status, JSON.stringify(r.json)).toBe(201);
        return r.json.id;
      });
      const server = await suite.paidOnce(row.id, to, '3.5', recorded, hotBefore);
      expect((await eventsOf(row.id)).sort()).toEqual(['payout.created', 'payout.paid', 'payout.sent']);
      await killHard(server);
    }, 90_000);
  }

  it.skipIf(ENGINE !== 'postgres')(
    'concurrent payouts through two server processes never overdraw: exactly those that fit',
    async () => {
      const [live2, sandbox2] = (await freePorts(2)) as [number, number];
      const a = await suite.start({ COWRIE_CHAIN_BASE_PAYOUT_KEY: '', COWRIE_ROLE: 'api' });
      const b = await suite.start({
        COWRIE_CHAIN_BASE_PAYOUT_KEY: '',
        COWRIE_ROLE: 'api',
        COWRIE_LIVE_PORT: String(live2),
        COWRIE_SANDBOX_PORT: String(sandbox2),
      });
      const testKey = (await createKey(suite.check.db, systemClock, { merchantId, environment: 'test', type: 'secret' })).key;
      await fund('test', '10');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api((i % 2 === 0 ? a : b).sandboxPort, testKey, 'POST', '/payouts', {
            amount: '2.2',
            asset: 'USDT',
            network: 'TRON',
            address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
          }),
        ),
      );
      const made = results.filter((r) => r.status === 201);
      expect(made).toHaveLength(4);
      for (const r of results) if (r.status !== 201) expect(r.json.error.code).toBe('insufficient_balance');
      const legs = await suite.check.db
        .selectFrom('ledger_entries')
        .select(['amount'])
        .where('merchant_id', '=', merchantId)
        .where('environment', '=', 'test')
        .where('account', '=', 'merchant_available')
        .execute();
      const availableNow = legs.reduce((sum, l) => sum.plus(l.amount), new Decimal(0));
      expect(availableNow.toFixed(6)).toBe('1.200000');
      await Promise.all([killHard(a), killHard(b)]);
    },
    60_000,
  );
});
