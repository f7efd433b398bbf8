// The variables of the live on-chain wallet rail, one set per network (COWRIE_CHAIN_<NETWORK>_…): their
// schema, which src/config.ts adds to its own, and the networks they turn on. src/config.ts reads the
// environment and hands the checked variables here.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { Type } from 'typebox';
import { ConfigError } from './config-error.js';
import { CANONICAL_TOKENS, CHAIN_NETWORKS, DEFAULT_CONFIRMATIONS, type ChainNetwork } from './shared/chains.js';

export type ChainVariables = Record<
  `COWRIE_CHAIN_${Uppercase<ChainNetwork>}_${'RPC_URLS' | 'ADDRESS' | 'USDT' | 'USDC'}`,
  string | undefined
> &
  Record<`COWRIE_CHAIN_${Uppercase<ChainNetwork>}_${'CONFIRMATIONS' | 'REPLACE_AFTER_BLOCKS'}`, number | undefined> &
  Record<`COWRIE_CHAIN_${Uppercase<ChainNetwork>}_${'PAYOUT_KEY' | 'PAYOUT_KEY_FILE'}`, string | undefined>;

/** The per-network variables of the live wallet rail, each checked for the form of its network's addresses. */
export function chainVariables() {
  const EVM = '^0x[0-9a-fA-F]{40}$';
  const pattern: Record<ChainNetwork, string> = {
    base: EVM,
    polygon: EVM,
    tron: '^T[1-9A-HJ-NP-Za-km-z]{33}$',
    solana: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  };
  const vars: Record<string, ReturnType<typeof Type.Optional<ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>>> = {};
  for (const n of CHAIN_NETWORKS) {
    const N = `COWRIE_CHAIN_${n.toUpperCase()}`;
    vars[`${N}_RPC_URLS`] = Type.Optional(Type.String({ pattern: '^https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*$' }));
    vars[`${N}_ADDRESS`] = Type.Optional(Type.String({ pattern: pattern[n] }));
    vars[`${N}_USDT`] = Type.Optional(Type.String({ pattern: pattern[n] }));
    vars[`${N}_USDC`] = Type.Optional(Type.String({ pattern: pattern[n] }));
    vars[`${N}_CONFIRMATIONS`] = Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 }));
    // The key's form is checked by payoutKey below, whose messages never show the value.
    vars[`${N}_PAYOUT_KEY`] = Type.Optional(Type.String({ minLength: 1 }));
    vars[`${N}_PAYOUT_KEY_FILE`] = Type.Optional(Type.String({ minLength: 1 }));
    vars[`${N}_REPLACE_AFTER_BLOCKS`] = Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 }));
  }
  return vars;
}

/** One network of the live on-chain wallet rail: on when its RPC URLs and address are set. */
export interface ChainConfig {
  readonly network: ChainNetwork;
  /** Tried in order; the next on an error or a timeout. */
  readonly rpcUrls: readonly string[];
  /** Where customers pay on this network. */
  readonly address: string;
  /** Token contract (EVM, TRON) or mint (Solana) of each stablecoin. */
  readonly tokens: Readonly<Record<'USDT' | 'USDC', string>>;
  /** Blocks (slots on Solana) a transfer must be deep before it pays. */
  readonly confirmations: number;
  /** The payout sender's hot wallet on this network, when a payout key is set. */
  readonly payout?: PayoutKeyConfig | null;
}

/**
 * A payout key: never shown. JSON, util.inspect (pino, console.log) and string conversion of it give
 * `[hidden]`; only `reveal()`, called where the network client is built, gives the key.
 */
export class HiddenKey {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return '[hidden]';
  }
  toString(): string {
    return '[hidden]';
  }
  [inspect.custom](): string {
    return '[hidden]';
  }
}

export interface PayoutKeyConfig {
  /** EVM and TRON: a hex private key; Solana: a base58 secret key. */
  readonly key: HiddenKey;
  /** EVM: blocks a payout transfer may stay unmined before it is replaced with a higher fee (default 20). */
  readonly replaceAfterBlocks: number;
}

export const DEFAULT_REPLACE_AFTER_BLOCKS = 20;

/** The network's payout key from COWRIE_CHAIN_<N>_PAYOUT_KEY or _PAYOUT_KEY_FILE, checked for its form (null when neither is set). */
function payoutKey(c: ChainVariables, network: ChainNetwork): PayoutKeyConfig | null {
  const N = `COWRIE_CHAIN_${network.toUpperCase() as Uppercase<ChainNetwork>}` as const;
  const inline = c[`${N}_PAYOUT_KEY`];
  const file = c[`${N}_PAYOUT_KEY_FILE`];
  const replaceAfterBlocks = c[`${N}_REPLACE_AFTER_BLOCKS`] ?? DEFAULT_REPLACE_AFTER_BLOCKS;
  if (inline === undefined && file === undefined) return null;
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError(`Invalid configuration:\n  set one of ${N}_PAYOUT_KEY and ${N}_PAYOUT_KEY_FILE, not both`);
  }
  let text: string;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(
        `Invalid configuration:\n  ${N}_PAYOUT_KEY_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  } else text = inline!.trim();
  const form =
    network === 'solana'
      ? { ok: /^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(text), says: 'a base58 secret key (64 bytes)' }
      : { ok: /^(0x)?[0-9a-fA-F]{64}$/.test(text), says: 'a hex private key (64 hex digits, 0x optional)' };
  if (!form.ok) {
    const from = file !== undefined ? `${N}_PAYOUT_KEY_FILE (${file})` : `${N}_PAYOUT_KEY`;
    throw new ConfigError(`Invalid configuration:\n  ${from}: must be ${form.says}; the value is not shown`);
  }
  return Object.freeze({ key: new HiddenKey(text), replaceAfterBlocks });
}

/** The networks of the live wallet rail whose RPC URLs and address are both set. */
export function chainConfigs(c: ChainVariables): ChainConfig[] {
  const out: ChainConfig[] = [];
  for (const network of CHAIN_NETWORKS) {
    const N = `COWRIE_CHAIN_${network.toUpperCase() as Uppercase<ChainNetwork>}` as const;
    const urls = c[`${N}_RPC_URLS`] as string | undefined;
    const address = c[`${N}_ADDRESS`] as string | undefined;
    if (urls === undefined && address === undefined) {
      const stray = (['USDT', 'USDC', 'CONFIRMATIONS', 'PAYOUT_KEY', 'PAYOUT_KEY_FILE', 'REPLACE_AFTER_BLOCKS'] as const).filter(
        (k) => c[`${N}_${k}`] !== undefined,
      );
      if (stray.length > 0) {
        throw new ConfigError(`Invalid configuration:\n  ${N}_${stray[0]} is set but ${N}_RPC_URLS and ${N}_ADDRESS are not`);
      }
      continue;
    }
    if (urls === undefined || address === undefined) {
      throw new ConfigError(
        `Invalid configuration:\n  the ${network} network needs both ${N}_RPC_URLS and ${N}_ADDRESS; missing: ${urls === undefined ? `${N}_RPC_URLS` : `${N}_ADDRESS`}`,
      );
    }
    const tokens = {
      USDT: (c[`${N}_USDT`] as string | undefined) ?? CANONICAL_TOKENS[network].USDT,
      USDC: (c[`${N}_USDC`] as string | undefined) ?? CANONICAL_TOKENS[network].USDC,
    };
    if (tokens.USDT.toLowerCase() === tokens.USDC.toLowerCase()) {
      throw new ConfigError(`Invalid configuration:\n  ${N}_USDT and ${N}_USDC name the same token`);
    }
    const payout = payoutKey(c, network);
    out.push(
      Object.freeze({
        network,
        rpcUrls: Object.freeze(urls.split(',').map((u) => u.trim().replace(/\/+$/, ''))),
        address,
        tokens: Object.freeze(tokens),
        confirmations: (c[`${N}_CONFIRMATIONS`] as number | undefined) ?? DEFAULT_CONFIRMATIONS[network],
        ...(payout ? { payout } : {}),
      }),
    );
  }
  return out;
}
