// What the tests of live payouts on Base share: an Anvil chain with a 6-decimal USDT and USDC, a hot wallet
// of a fresh key (ETH for fees and 1000 USDT), the server's configuration of Base with that wallet as its
// payout sender, and reading a token balance from the chain; and the suites that kill a server process at a
// step of its payout sender (COWRIE_TEST_PAYOUT_HALT) and prove, after a restart, one transfer on the chain.
import { randomBytes } from 'node:crypto';
import { parseEther, parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import type { PayoutRow, PayoutTransactionRow } from '../../src/db/schema.js';
import { startAnvil, testToken, type Anvil } from './anvil.js';
import { createTestDatabase, type TestDatabase } from './harness.js';
import { freePorts, killHard, spawnServer, type ServerProcess } from './server-process.js';
import { waitFor } from './wait.js';

export interface PayoutChain {
  chain: Anvil;
  usdt: Address;
  usdc: Address;
  /** The hot wallet's address. */
  hot: Address;
  /** COWRIE_CHAIN_POLL_MS and the COWRIE_CHAIN_BASE_* variables of the chain, its tokens and the hot wallet. */
  env: Record<string, string>;
  /** A token balance on the chain (USDT unless told), in the token's units. */
  balanceOf(owner: Address, token?: Address): Promise<bigint>;
}

export async function startPayoutChain(confirmations: number): Promise<PayoutChain> {
  const chain = await startAnvil({ chainId: 84532 });
  const usdt = await chain.deployToken('USDT');
  const usdc = await chain.deployToken('USDC');
  const keyHex = randomBytes(32).toString('hex');
  const hot = privateKeyToAccount(`0x${keyHex}`).address;
  await chain.test.setBalance({ address: hot, value: parseEther('10') });
  await chain.mint(usdt, hot, '1000');
  const env = {
    COWRIE_CHAIN_POLL_MS: '100',
    COWRIE_CHAIN_BASE_RPC_URLS: chain.url,
    COWRIE_CHAIN_BASE_ADDRESS: chain.accounts[5]!,
    COWRIE_CHAIN_BASE_USDT: usdt,
    COWRIE_CHAIN_BASE_USDC: usdc,
    COWRIE_CHAIN_BASE_CONFIRMATIONS: String(confirmations),
    COWRIE_CHAIN_BASE_PAYOUT_KEY: keyHex,
  };
  const { abi } = testToken();
  const balanceOf = async (owner: Address, token = usdt) =>
    (await chain.public.readContract({ address: token, abi, functionName: 'balanceOf', args: [owner] })) as bigint;
  return { chain, usdt, usdc, hot, env, balanceOf };
}

/** The steps the payout sender can be stopped at by COWRIE_TEST_PAYOUT_HALT. */
export type HaltStep = 'recorded' | 'broadcast' | 'confirming';

export interface PayoutCrashSuite {
  readonly base: PayoutChain;
  /** A second connection that reads what the servers wrote. */
  readonly check: Database;
  /** A server process on the suite's two ports (and `extra` variables), ready. */
  start(extra?: Record<string, string>): Promise<ServerProcess>;
  /**
   * A server whose sender kills its own process at `step`; `ask` asks it for one payout to `to` and answers
   * the payout's id. Once the process is dead: one transfer recorded; at `recorded` nothing on the chain and
   * the payout `requested`, at `broadcast` still `requested`, at `confirming` `sent`. Answers the payout's
   * row then and its one recorded transfer.
   */
  killedAt(
    step: HaltStep,
    to: Address,
    ask: (server: ServerProcess) => Promise<string>,
  ): Promise<{ row: PayoutRow; recorded: PayoutTransactionRow }>;
  /**
   * Restarts the server and waits until the payout is paid at the depth: exactly one transfer on the chain
   * (the recorded one), `to` holding exactly `amount` of USDT more than `toBefore` and the hot wallet
   * short by exactly that. Answers the running server.
   */
  paidOnce(id: string, to: Address, amount: string, recorded: PayoutTransactionRow, hotBefore: bigint): Promise<ServerProcess>;
}

/**
 * Registers the suite's beforeAll and afterAll for payouts across kill -9: a payout chain, a fresh database,
 * server processes on two fixed ports with the chain's payout sender and `env`; `setUp` runs once with the
 * first server up (to create the payer or merchant that asks), which is then killed.
 */
export function payoutCrashSuite(
  confirmations: number,
  env: Record<string, string>,
  setUp: (first: ServerProcess, check: Database) => Promise<void>,
): PayoutCrashSuite {
  let base: PayoutChain;
  let db: TestDatabase;
  let check: Database;
  let all: Record<string, string>;
  const procs: ServerProcess[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const server = await spawnServer(db.url, { ...all, ...extra });
    procs.push(server);
    await server.ready;
    return server;
  };
  const rowOf = (id: string) => check.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const txsOf = (id: string) => check.db.selectFrom('payout_transactions').selectAll().where('payout_id', '=', id).execute();

  beforeAll(async () => {
    base = await startPayoutChain(confirmations);
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    all = { COWRIE_LIVE_PORT: String(live), COWRIE_SANDBOX_PORT: String(sandbox), ...base.env, ...env };
    db = await createTestDatabase();
    const first = await start();
    check = openDatabase(db.url);
    await setUp(first, check);
    await killHard(first);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await check?.close();
    await db?.drop();
    await base?.chain.stop();
  });

  return {
    get base() {
      return base;
    },
    get check() {
      return check;
    },
    start,
    async killedAt(step, to, ask) {
      const halting = await start({ COWRIE_TEST_PAYOUT_HALT: step });
      const id = await ask(halting);
      const died = await Promise.race([halting.exited, new Promise((res) => setTimeout(() => res('alive'), 20_000))]);
      expect(died).toMatchObject({ signal: 'SIGKILL' });
      const recorded = await txsOf(id);
      expect(recorded).toHaveLength(1);
      const row = await rowOf(id);
      if (step === 'recorded') expect(await base.balanceOf(to)).toBe(0n);
      expect(row.status).toBe(step === 'confirming' ? 'sent' : 'requested');
      return { row, recorded: recorded[0]! };
    },
    async paidOnce(id, to, amount, recorded, hotBefore) {
      const server = await start();
      await waitFor(
        'mined',
        () => base.balanceOf(to),
        (b) => b > 0n,
        { timeoutMs: 20_000 },
      );
      await base.chain.mine(confirmations);
      const paid = await waitFor(
        'paid',
        () => rowOf(id),
        (p) => p.status === 'paid',
        { timeoutMs: 20_000 },
      );
      expect(paid.tx_hash).toBe(recorded.tx_hash);
      // Some more blocks and runs of the sender: nothing more is sent.
      await base.chain.mine(2);
      await new Promise((res) => setTimeout(res, 500));
      expect(await base.balanceOf(to)).toBe(parseUnits(amount, 6));
      expect(hotBefore - (await base.balanceOf(base.hot))).toBe(parseUnits(amount, 6));
      expect((await txsOf(id)).map((t) => t.state)).toEqual(['landed']);
      return server;
    },
  };
}
