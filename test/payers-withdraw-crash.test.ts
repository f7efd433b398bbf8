// Payer withdrawals across kill -9 (both engines): a real server process whose payout sender kills its own
// process at one step (COWRIE_TEST_PAYOUT_HALT, read only by tests): after the withdrawal's transfer was
// signed and recorded but before it was broadcast, after the broadcast but before it was marked sent, and
// while it was confirming. Restarted without the halt, the sender looks the recorded transfer up before it
// signs anything: one transfer on the chain, the address holding exactly the amount, the hot wallet short by
// exactly the amount, the payer's balance down by exactly the amount, held once and sent once in its ledger.
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { payerBalances, postPayerMovement } from '../src/modules/ledger/index.js';
import { ENGINE } from './helpers/harness.js';
import { expectPayerLedgerInvariant } from './helpers/ledger-invariant.js';
import { payoutCrashSuite } from './helpers/payout-chain.js';
import { killHard } from './helpers/server-process.js';
import { WalletClient } from './helpers/wallet.js';

const CONFIRMATIONS = 2;

describe(`payer withdrawals across kill -9 (${ENGINE})`, () => {
  let wallet: WalletClient;
  let payerId: string;
  const suite = payoutCrashSuite(
    CONFIRMATIONS,
    { COWRIE_PAYER_ACCOUNTS: 'on', COWRIE_PAYOUT_AUTO_APPROVE: '1000' },
    async (first, check) => {
      // The wallet client keeps its session across restarts: the servers listen on the same ports.
      wallet = new WalletClient(`http://127.0.0.1:${first.livePort}`);
      expect((await wallet.signUp('crash@payers.example')).status).toBe(303);
      payerId = (await check.db.selectFrom('payers').select('id').where('email', '=', 'crash@payers.example').executeTakeFirstOrThrow()).id;
      // Funds, as a top-up would leave them.
      await postPayerMovement(check.db, {
        payerId,
        environment: 'live',
        asset: 'USDT',
        kind: 'top_up',
        amount: new Decimal(100),
        at: Date.now(),
      });
    },
  );
  const balance = async () => (await payerBalances(suite.check.db, payerId, 'live')).USDT;

  for (const step of ['recorded', 'broadcast', 'confirming'] as const) {
    it(`killed at "${step}": after a restart the withdrawal is paid exactly once`, async () => {
      const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
      const before = await balance();
      const hotBefore = await suite.base.balanceOf(suite.base.hot);
      const { row, recorded } = await suite.killedAt(step, to, async () => {
        const r = await wallet.withdraw({ amount: '3.5', address: to });
        expect(r.status, r.html).toBe(303);
        const w = suite.check.db.selectFrom('payouts').select('id').where('payer_id', '=', payerId).where('address', '=', to);
        return (await w.executeTakeFirstOrThrow()).id;
      });
      expect(row.purpose).toBe('payer_withdrawal');
      expect((await balance()).toFixed(6)).toBe(before.minus('3.5').toFixed(6));
      const server = await suite.paidOnce(row.id, to, '3.5', recorded, hotBefore);
      expect((await balance()).toFixed(6)).toBe(before.minus('3.5').toFixed(6));
      // Held once and sent once in the payer's ledger.
      const kinds = await suite.check.db
        .selectFrom('payer_ledger_entries')
        .select('kind')
        .where('payout_id', '=', row.id)
        .where('account', '=', 'payer_payout_held')
        .orderBy('seq')
        .execute();
      expect(kinds.map((k) => k.kind)).toEqual(['withdrawal', 'withdrawal_sent']);
      // Its audit trail: each step once.
      const audit = await suite.check.db.selectFrom('payer_audit').select(['action', 'detail']).where('payer_id', '=', payerId).execute();
      const steps = audit.filter((a) => a.detail !== null && JSON.parse(a.detail).payout === row.id).map((a) => a.action);
      expect(steps.sort()).toEqual(['payout.approved', 'payout.paid', 'payout.requested', 'payout.sent']);
      await expectPayerLedgerInvariant(suite.check.db);
      await killHard(server);
    }, 90_000);
  }
});
