// The on-chain rail's configuration: a network is on when its RPC URLs and address are set; tokens default to
// the canonical mainnet contracts and depths to the documented ones; anything missing or malformed names
// itself at start. And the failover order of the RPC URLs.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { urlOrder } from '../src/modules/rails/chain/http-failover.js';
import { CANONICAL_TOKENS, DEFAULT_CONFIRMATIONS } from '../src/shared/chains.js';

const EVM = '0x1111111111111111111111111111111111111111';
const TRON = 'TQ5NFCcTRmAwo2KQLZ2bMnX2tqTqq9sZBk';
const SOL = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

describe('on-chain configuration', () => {
  it('no network is on by default', () => {
    expect(loadConfig({}).chains).toEqual([]);
    expect(loadConfig({}).chainWatch).toEqual({ pollMs: 2000, blockRange: 1000, rpcTimeoutMs: 10_000 });
  });

  it('RPC URLs and an address turn a network on, with the canonical tokens and the documented depth', () => {
    const c = loadConfig({
      COWRIE_CHAIN_BASE_RPC_URLS: 'https://a.example/rpc , https://b.example/rpc/',
      COWRIE_CHAIN_BASE_ADDRESS: EVM,
      COWRIE_CHAIN_TRON_RPC_URLS: 'https://api.trongrid.io',
      COWRIE_CHAIN_TRON_ADDRESS: TRON,
      COWRIE_CHAIN_TRON_CONFIRMATIONS: '25',
      COWRIE_CHAIN_SOLANA_RPC_URLS: 'https://api.mainnet-beta.solana.com',
      COWRIE_CHAIN_SOLANA_ADDRESS: SOL,
      COWRIE_CHAIN_SOLANA_USDC: SOL,
    });
    expect(c.chains.map((x) => x.network)).toEqual(['tron', 'solana', 'base']);
    expect(c.chains.find((x) => x.network === 'base')).toEqual({
      network: 'base',
      rpcUrls: ['https://a.example/rpc', 'https://b.example/rpc'],
      address: EVM,
      tokens: CANONICAL_TOKENS.base,
      confirmations: DEFAULT_CONFIRMATIONS.base,
    });
    expect(c.chains.find((x) => x.network === 'tron')!.confirmations).toBe(25);
    expect(c.chains.find((x) => x.network === 'solana')!.tokens).toEqual({ USDT: CANONICAL_TOKENS.solana.USDT, USDC: SOL });
    expect(DEFAULT_CONFIRMATIONS).toEqual({ base: 20, polygon: 64, tron: 19, solana: 32 });
  });

  it('a missing or malformed variable names itself', () => {
    const fails = (env: Record<string, string>, pattern: RegExp) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(pattern);
    };
    fails({ COWRIE_CHAIN_BASE_RPC_URLS: 'https://a.example' }, /COWRIE_CHAIN_BASE_ADDRESS/);
    fails({ COWRIE_CHAIN_POLYGON_ADDRESS: EVM }, /COWRIE_CHAIN_POLYGON_RPC_URLS/);
    fails({ COWRIE_CHAIN_BASE_RPC_URLS: 'ftp://a.example', COWRIE_CHAIN_BASE_ADDRESS: EVM }, /COWRIE_CHAIN_BASE_RPC_URLS/);
    fails({ COWRIE_CHAIN_BASE_RPC_URLS: 'https://a.example', COWRIE_CHAIN_BASE_ADDRESS: TRON }, /COWRIE_CHAIN_BASE_ADDRESS/);
    fails({ COWRIE_CHAIN_TRON_RPC_URLS: 'https://a.example', COWRIE_CHAIN_TRON_ADDRESS: EVM }, /COWRIE_CHAIN_TRON_ADDRESS/);
    fails(
      { COWRIE_CHAIN_BASE_RPC_URLS: 'https://a.example', COWRIE_CHAIN_BASE_ADDRESS: EVM, COWRIE_CHAIN_BASE_USDT: 'nope' },
      /COWRIE_CHAIN_BASE_USDT/,
    );
    fails(
      { COWRIE_CHAIN_BASE_RPC_URLS: 'https://a.example', COWRIE_CHAIN_BASE_ADDRESS: EVM, COWRIE_CHAIN_BASE_CONFIRMATIONS: '0' },
      /COWRIE_CHAIN_BASE_CONFIRMATIONS/,
    );
    fails(
      {
        COWRIE_CHAIN_BASE_RPC_URLS: 'https://a.example',
        COWRIE_CHAIN_BASE_ADDRESS: EVM,
        COWRIE_CHAIN_BASE_USDC: CANONICAL_TOKENS.base.USDT,
      },
      /same token/,
    );
    fails({ COWRIE_CHAIN_SOLANA_CONFIRMATIONS: '10' }, /COWRIE_CHAIN_SOLANA_CONFIRMATIONS is set but/);
    fails({ COWRIE_CHAIN_POLL_MS: '1' }, /COWRIE_CHAIN_POLL_MS/);
  });

  it('RPC URLs are tried in the configured order; one that failed is tried last while it rests', () => {
    expect(urlOrder(3, [], 1000)).toEqual([0, 1, 2]);
    expect(urlOrder(3, [5000], 1000)).toEqual([1, 2, 0]);
    expect(urlOrder(3, [5000, 0, 5000], 1000)).toEqual([1, 0, 2]);
    expect(urlOrder(3, [5000], 6000)).toEqual([0, 1, 2]);
  });
});
