// Try a live wallet payment on a laptop against Anvil, a real Ethereum node from the npm registry:
//   npm run anvil-demo                       starts Anvil on 127.0.0.1:8545 (ANVIL_PORT) as a Base-like
//                                            chain, deploys test USDT and USDC (6 decimals), funds Anvil's
//                                            first account and prints the COWRIE_CHAIN_BASE_* values
//   npm run anvil-demo -- pay AMOUNT [USDT|USDC]
//                                            sends AMOUNT of the token to the printed address from the funded
//                                            account, on the running Anvil (then mines 20 blocks, the default
//                                            depth on Base, with `npm run anvil-demo -- mine 20`)
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, getAddress, http, parseUnits, type Address } from 'viem';
import { startAnvil, testToken } from '../test/helpers/anvil.js';

const PORT = Number(process.env['ANVIL_PORT'] ?? 8545);
const STATE = join(tmpdir(), `cowrie-anvil-demo-${PORT}.json`);
const PAYEE: Address = getAddress('0x00000000000000000000000000000000c0ffee00');

interface DemoState {
  url: string;
  usdt: Address;
  usdc: Address;
  payee: Address;
}

const [command, ...args] = process.argv.slice(2);

if (command === undefined) {
  const anvil = await startAnvil({ port: PORT, chainId: 8453 });
  const usdt = await anvil.deployToken('USDT');
  const usdc = await anvil.deployToken('USDC');
  await anvil.mint(usdt, anvil.accounts[0]!, '1000000');
  await anvil.mint(usdc, anvil.accounts[0]!, '1000000');
  const state: DemoState = { url: anvil.url, usdt, usdc, payee: PAYEE };
  writeFileSync(STATE, JSON.stringify(state));
  process.stdout.write(
    [
      `Anvil (chain id 8453) listening on ${anvil.url}; test USDT ${usdt}, USDC ${usdc}`,
      'Start Cowrie with:',
      `  COWRIE_CHAIN_BASE_RPC_URLS=${anvil.url} COWRIE_CHAIN_BASE_ADDRESS=${PAYEE} \\`,
      `  COWRIE_CHAIN_BASE_USDT=${usdt} COWRIE_CHAIN_BASE_USDC=${usdc} npm start`,
      'Create a live intent settling in USDT with a verified merchant’s live key, open its checkout_url, choose Base,',
      'then send the exact amount shown:  npm run anvil-demo -- pay <amount>   and deepen it:  npm run anvil-demo -- mine 20',
      '',
    ].join('\n'),
  );
  const stop = () => void anvil.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  if (!existsSync(STATE)) throw new Error('start the demo chain first: npm run anvil-demo');
  const state = JSON.parse(readFileSync(STATE, 'utf8')) as DemoState;
  const transport = http(state.url);
  if (command === 'pay') {
    const [amount, asset = 'USDT'] = args;
    if (!amount || !/^\d+(\.\d{1,6})?$/.test(amount)) throw new Error('usage: npm run anvil-demo -- pay AMOUNT [USDT|USDC]');
    const wallet = createWalletClient({ transport });
    const [from] = await wallet.getAddresses();
    const hash = await wallet.writeContract({
      address: asset === 'USDC' ? state.usdc : state.usdt,
      abi: testToken().abi,
      functionName: 'transfer',
      args: [state.payee, parseUnits(amount, 6)],
      account: from!,
      chain: null,
    });
    const receipt = await createPublicClient({ transport }).waitForTransactionReceipt({ hash });
    process.stdout.write(`sent ${amount} ${asset} to ${state.payee}: ${hash} in block ${receipt.blockNumber}\n`);
  } else if (command === 'mine') {
    await createTestClient({ mode: 'anvil', transport }).mine({ blocks: Number(args[0] ?? 1) });
    process.stdout.write(`mined ${Number(args[0] ?? 1)} blocks\n`);
  } else {
    throw new Error(`unknown command ${command}: pay or mine`);
  }
}
