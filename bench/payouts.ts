// The payout sender against Anvil: 200 approved live payouts of one merchant on Base, then the network's
// sender run (as its leased loop runs it, without the loop's pauses) until every payout is `sent`: payouts
// signed, recorded, broadcast and marked sent per second; then, with the confirmations mined, until every
// one is `paid` (looked up at the depth and settled in the ledger): the time from the start. Each payout is a real
// ERC-20 transfer from the hot wallet (automine: one block each). On SQLite, and on PostgreSQL when a
// server answers. The server runs in this process (the sender is what is measured).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { pino } from 'pino';
import { getAddress, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../src/config.js';
import { startCowrie } from '../src/main.js';
import { ACCOUNTS, transfer } from '../src/modules/ledger/index.js';
import { createMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { spawn } from 'node:child_process';
import { createPublicClient, createTestClient, createWalletClient, http, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { anvilBinary, testToken } from '../test/helpers/anvil.js';
import { freePorts } from '../test/helpers/server-process.js';
import { withPgDatabase } from './lib.js';

const PAYOUTS = Number(process.env['BENCH_PAYOUTS'] ?? 200);
const CONFIRMATIONS = 2;

/** Anvil and its clients (test/helpers/anvil.ts waits through vitest, which a bench script does not run in). */
async function startAnvil() {
  const [port] = await freePorts(1);
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), '--silent'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const pub = createPublicClient({ chain: foundry, transport: http(url, { retryCount: 0 }) });
  for (let i = 0; ; i++) {
    if (
      await pub.getBlockNumber({ cacheTime: 0 }).then(
        () => true,
        () => false,
      )
    )
      break;
    if (i > 400) throw new Error('anvil did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const wallet = createWalletClient({ chain: foundry, transport: http(url, { retryCount: 0 }) });
  const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(url, { retryCount: 0 }) });
  const [deployer] = await wallet.getAddresses();
  const { abi, bytecode } = testToken();
  const mined = (hash: `0x${string}`) => pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  return {
    url,
    accounts: await wallet.getAddresses(),
    test,
    async deployToken(symbol: string): Promise<Address> {
      const hash = await wallet.deployContract({ abi, bytecode, args: [`Test ${symbol}`, symbol], account: deployer!, chain: foundry });
      return (await mined(hash)).contractAddress!;
    },
    async mint(token: Address, to: Address, amount: string) {
      await mined(
        await wallet.writeContract({
          address: token,
          abi,
          functionName: 'mint',
          args: [to, BigInt(amount) * 1_000_000n],
          account: deployer!,
          chain: foundry,
        }),
      );
    },
    mine: (blocks: number) => test.mine({ blocks }),
    async stop() {
      child.kill('SIGKILL');
    },
  };
}

async function sendAll(engine: string, databaseUrl: string): Promise<void> {
  const anvil = await startAnvil();
  const keyHex = randomBytes(32).toString('hex');
  const hot = privateKeyToAccount(`0x${keyHex}`).address;
  try {
    const usdt = await anvil.deployToken('USDT');
    await anvil.test.setBalance({ address: hot, value: parseEther('1000') });
    await anvil.mint(usdt, hot, '100000000');
    const [live, sandbox] = await freePorts(2);
    const config = loadConfig({
      COWRIE_DATABASE_URL: databaseUrl,
      COWRIE_HOST: '127.0.0.1',
      COWRIE_LIVE_PORT: String(live),
      COWRIE_SANDBOX_PORT: String(sandbox),
      COWRIE_METRICS_PORT: '0',
      COWRIE_LOG_LEVEL: 'warn',
      COWRIE_CHAIN_BASE_RPC_URLS: anvil.url,
      COWRIE_CHAIN_BASE_ADDRESS: anvil.accounts[5]!,
      COWRIE_CHAIN_BASE_USDT: usdt,
      COWRIE_CHAIN_BASE_USDC: await anvil.deployToken('USDC'),
      COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
      COWRIE_CHAIN_BASE_PAYOUT_KEY: keyHex,
      COWRIE_PAYOUT_AUTO_APPROVE: '1000',
      COWRIE_SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    const running = await startCowrie(config, { logger: pino({ level: 'warn' }), seedDemo: false, startJobs: false });
    try {
      const { services } = running;
      const merchant = await createMerchant(services.db, systemClock, { name: 'Payout bench', verified: true });
      const scope = { merchantId: merchant.merchant.id, environment: 'live' as const };
      const base = { merchantId: scope.merchantId, environment: 'live' as const, asset: 'USDT' as const, kind: 'payment' as const };
      await transfer(services.db, { ...base, at: Date.now() }, ACCOUNTS.world, ACCOUNTS.available, new Decimal(PAYOUTS * 2));
      for (let i = 0; i < PAYOUTS; i++) {
        const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
        await services.payouts.create(scope, { amount: '1.5', asset: 'USDT', network: 'base', address: to });
      }
      const sender = services.payoutSenders[0]!;
      const count = async (status: 'requested' | 'sent' | 'paid') =>
        Number(
          (
            await services.db
              .selectFrom('payouts')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('status', '=', status)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const t0 = process.hrtime.bigint();
      while ((await count('requested')) > 0) await sender.runOnce();
      const sendS = Number(process.hrtime.bigint() - t0) / 1e9;
      await anvil.mine(CONFIRMATIONS);
      while ((await count('sent')) > 0) await sender.runOnce();
      const paidS = Number(process.hrtime.bigint() - t0) / 1e9;
      process.stdout.write(
        `${engine}: ${PAYOUTS} payouts sent (each signed, recorded, broadcast, marked sent) in ${sendS.toFixed(2)} s, ` +
          `${(PAYOUTS / sendS).toFixed(1)} payouts/s; all ${await count('paid')} paid at the depth ${paidS.toFixed(2)} s after the start\n`,
      );
    } finally {
      await running.stop();
    }
  } finally {
    await anvil.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cowrie-payout-bench-'));
try {
  await sendAll('SQLite', `sqlite:${join(dir, 'payouts.db')}`);
  await withPgDatabase((url) => sendAll('PostgreSQL', url));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
