// Payer withdrawals across kill -9 (both engines): a real server process whose payout sender kills its own
// process at one step (COWRIE_TEST_PAYOUT_HALT, read only by tests): after the withdrawal's transfer was
// signed and recorded but before it was broadcast, after the broadcast but before it was marked sent, and
// while it was confirming. Restarted without the halt, the sender looks the recorded transfer up before it
// signs anything: one transfer on the chain, the address holding exactly the amount, the hot wallet short by
// exactly the amount, the payer's balance down by exactly the amount, held once and sent once in its ledger.
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { getAddress, parseEther, parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { payerBalances, postPayerMovement } from '../src/modules/ledger/index.js';
import { startAnvil, testToken, type Anvil } from './helpers/anvil.js';
import { ENGINE, createTestDatabase, type TestDatabase } from './helpers/harness.js';
import { expectPayerLedgerInvariant } from './helpers/ledger-invariant.js';
import { freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';
import { WalletClient } from './helpers/wallet.js';

const CONFIRMATIONS = 2;

describe(`payer withdrawals across kill -9 (${ENGINE})`, () => {
  let chain: Anvil;
  let usdt: Address;
  let db: TestDatabase;
  let check: Database;
  let env: Record<string, string>;
  let wallet: WalletClient;
  let payerId: string;
  const procs: ServerProcess[] = [];
  const keyHex = randomBytes(32).toString('hex');
  const hot = privateKeyToAccount(`0x${keyHex}`).address;

  const start = async (extra: Record<string, string> = {}) => {
    const server = await spawnServer(db.url, { ...env, ...extra });
    procs.push(server);
    await server.ready;
    return server;
  };

  beforeAll(async () => {
    chain = await startAnvil({ chainId: 84532 });
    usdt = await chain.deployToken('USDT');
    await chain.test.setBalance({ address: hot, value: parseEther('10') });
    await chain.mint(usdt, hot, '1000');
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    env = {
      COWRIE_LIVE_PORT: String(live),
      COWRIE_SANDBOX_PORT: String(sandbox),
      COWRIE_PAYER_ACCOUNTS: 'on',
      COWRIE_CHAIN_POLL_MS: '100',
      COWRIE_CHAIN_BASE_RPC_URLS: chain.url,
      COWRIE_CHAIN_BASE_ADDRESS: chain.accounts[5]!,
      COWRIE_CHAIN_BASE_USDT: usdt,
      COWRIE_CHAIN_BASE_USDC: await chain.deployToken('USDC'),
      COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
      COWRIE_CHAIN_BASE_PAYOUT_KEY: keyHex,
      COWRIE_PAYOUT_AUTO_APPROVE: '1000',
    };
    db = await createTestDatabase();
    const first = await start();
    check = openDatabase(db.url);
    wallet = new WalletClient(`http://127.0.0.1:${live}`);
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
    await killHard(first);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await check?.close();
    await db?.drop();
    await chain?.stop();
  });

  const token = testToken();
  const onChain = async (owner: Address) =>
    (await chain.public.readContract({ address: usdt, abi: token.abi, functionName: 'balanceOf', args: [owner] })) as bigint;
  const rowOf = (id: string) => check.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const txsOf = (id: string) => check.db.selectFrom('payout_transactions').selectAll().where('payout_id', '=', id).execute();
  const balance = async () => (await payerBalances(check.db, payerId, 'live')).USDT;

  for (const step of ['recorded', 'broadcast', 'confirming'] as const) {
    it(`killed at "${step}": after a restart the withdrawal is paid exactly once`, async () => {
      const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
      const before = await balance();
      const hotBefore = await onChain(hot);
      const halting = await start({ COWRIE_TEST_PAYOUT_HALT: step });
      const r = await wallet.withdraw({ amount: '3.5', address: to });
      expect(r.status, r.html).toBe(303);
      const died = await Promise.race([halting.exited, new Promise((res) => setTimeout(() => res('alive'), 20_000))]);
      expect(died).toMatchObject({ signal: 'SIGKILL' });
      const w = await check.db
        .selectFrom('payouts')
        .selectAll()
        .where('payer_id', '=', payerId)
        .where('address', '=', to)
        .executeTakeFirstOrThrow();
      const recorded = await txsOf(w.id);
      expect(recorded).toHaveLength(1);
      expect((await balance()).toFixed(6)).toBe(before.minus('3.5').toFixed(6));
      if (step === 'recorded') {
        expect(await onChain(to)).toBe(0n);
        expect(w.status).toBe('requested');
      }
      if (step === 'broadcast') expect(w.status).toBe('requested');
      if (step === 'confirming') expect(w.status).toBe('sent');
      const server = await start();
      await waitFor(
        'mined',
        () => onChain(to),
        (b) => b > 0n,
        { timeoutMs: 20_000 },
      );
      await chain.mine(CONFIRMATIONS);
      const paid = await waitFor(
        'paid',
        () => rowOf(w.id),
        (p) => p.status === 'paid',
        { timeoutMs: 20_000 },
      );
      expect(paid.tx_hash).toBe(recorded[0]!.tx_hash);
      await chain.mine(2);
      await new Promise((res) => setTimeout(res, 500));
      expect(await onChain(to)).toBe(parseUnits('3.5', 6));
      expect(hotBefore - (await onChain(hot))).toBe(parseUnits('3.5', 6));
      expect((await txsOf(w.id)).map((t) => t.state)).toEqual(['landed']);
      expect((await balance()).toFixed(6)).toBe(before.minus('3.5').toFixed(6));
      const kinds = await check.db
        .selectFrom('payer_ledger_entries')
        .select('kind')
        .where('payout_id', '=', w.id)
        .where('account', '=', 'payer_payout_held')
        .orderBy('seq')
        .execute();
      expect(kinds.map((k) => k.kind)).toEqual(['withdrawal', 'withdrawal_sent']);
      // Its audit trail: each step once.
      const audit = await check.db.selectFrom('payer_audit').select(['action', 'detail']).where('payer_id', '=', payerId).execute();
      const steps = audit.filter((a) => a.detail !== null && JSON.parse(a.detail).payout === w.id).map((a) => a.action);
      expect(steps.sort()).toEqual(['payout.approved', 'payout.paid', 'payout.requested', 'payout.sent']);
      await expectPayerLedgerInvariant(check.db);
      await killHard(server);
    }, 90_000);
  }
});
