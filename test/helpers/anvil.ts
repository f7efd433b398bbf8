// Anvil, a real Ethereum node (npm `@foundry-rs/anvil`, whose Linux binary ships inside its platform
// package; nothing is downloaded at run time), and a 6-decimal ERC-20 the tests deploy on it, compiled
// from test/fixtures/TestStablecoin.sol with the `solc` npm package (cached in the temp folder by the
// source's hash). Blocks are mined on each transaction (or every `blockTime` seconds) and on demand.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, createTestClient, createWalletClient, http, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { freePorts } from './server-process.js';
import { waitFor } from './wait.js';

const require = createRequire(import.meta.url);
const SOURCE = fileURLToPath(new URL('../fixtures/TestStablecoin.sol', import.meta.url));

export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

export interface CompiledToken {
  abi: readonly Record<string, unknown>[];
  bytecode: Hex;
}

let compiled: CompiledToken | null = null;

/** The test token's ABI and bytecode, compiled once (and kept in the temp folder between runs). */
export function testToken(): CompiledToken {
  if (compiled) return compiled;
  const source = readFileSync(SOURCE, 'utf8');
  const cacheDir = join(tmpdir(), 'cowrie-solc');
  const cache = join(cacheDir, `${createHash('sha256').update(source).digest('hex').slice(0, 16)}.json`);
  if (existsSync(cache)) {
    compiled = JSON.parse(readFileSync(cache, 'utf8')) as CompiledToken;
    return compiled;
  }
  const solc = require('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources: { 'TestStablecoin.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Record<string, unknown>[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestStablecoin.sol']!['TestStablecoin']!;
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cache, JSON.stringify(compiled));
  return compiled;
}

export interface Anvil {
  url: string;
  port: number;
  process: ChildProcess;
  /** viem clients on this node (the wallet client sends from Anvil's unlocked accounts). */
  public: ReturnType<typeof createPublicClient>;
  wallet: ReturnType<typeof createWalletClient>;
  /** Anvil's unlocked development accounts. */
  accounts: readonly Address[];
  test: ReturnType<typeof createTestClient>;
  /** Deploys a fresh 6-decimal test token; answers its address. */
  deployToken(symbol: string): Promise<Address>;
  /** Mints `amount` (decimal) of `token` to `to`. */
  mint(token: Address, to: Address, amount: string): Promise<void>;
  /** Sends `amount` (decimal) of `token` from an unlocked account; answers the hash once mined. */
  transfer(token: Address, to: Address, amount: string, from?: Address): Promise<{ hash: Hex; block: number }>;
  /** Mines `n` empty blocks. */
  mine(n: number): Promise<void>;
  head(): Promise<number>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  stop(): Promise<void>;
}

export async function startAnvil(opts: { port?: number; blockTime?: number; chainId?: number } = {}): Promise<Anvil> {
  const port = opts.port ?? (await freePorts(1))[0]!;
  const args = ['--host', '127.0.0.1', '--port', String(port), '--silent', '--chain-id', String(opts.chainId ?? 31337)];
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime));
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.resume();
  const url = `http://127.0.0.1:${port}`;
  const chain = { ...foundry, id: opts.chainId ?? 31337 };
  const pub = createPublicClient({ chain, transport: http(url, { retryCount: 0 }) });
  const state = await waitFor(
    'anvil to answer',
    () =>
      child.exitCode !== null
        ? 'exited'
        : pub.getBlockNumber({ cacheTime: 0 }).then(
            () => 'up',
            () => 'starting',
          ),
    (st) => st !== 'starting',
    { timeoutMs: 20_000 },
  ).catch(() => 'timed out');
  if (state !== 'up') throw new Error(`anvil did not start (${state}): ${stderr}`);
  const wallet = createWalletClient({ chain, transport: http(url, { retryCount: 0 }) });
  const testClient = createTestClient({ chain, mode: 'anvil', transport: http(url, { retryCount: 0 }) });
  const token = testToken();
  const accounts = await wallet.getAddresses();
  const deployer = accounts[0]!;
  const units = (amount: string) => parseUnits(amount, 6);
  const mined = async (hash: Hex) => {
    const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return { hash, block: Number(receipt.blockNumber) };
  };
  return {
    url,
    port,
    process: child,
    public: pub,
    wallet,
    accounts,
    test: testClient,
    async deployToken(symbol) {
      const hash = await wallet.deployContract({
        abi: token.abi,
        bytecode: token.bytecode,
        args: [`Test ${symbol}`, symbol],
        account: deployer,
        chain,
      });
      const receipt = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return receipt.contractAddress!;
    },
    async mint(tokenAddress, to, amount) {
      await mined(
        await wallet.writeContract({
          address: tokenAddress,
          abi: token.abi,
          functionName: 'mint',
          args: [to, units(amount)],
          account: deployer,
          chain,
        }),
      );
    },
    async transfer(tokenAddress, to, amount, from = deployer) {
      return mined(
        await wallet.writeContract({
          address: tokenAddress,
          abi: token.abi,
          functionName: 'transfer',
          args: [to, units(amount)],
          account: from,
          chain,
        }),
      );
    },
    async mine(n) {
      await testClient.mine({ blocks: n });
    },
    async head() {
      return Number(await pub.getBlockNumber({ cacheTime: 0 }));
    },
    async snapshot() {
      return testClient.snapshot();
    },
    async revert(id) {
      await testClient.revert({ id });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // Its exit, or SIGKILL after a grace of 3 s.
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
