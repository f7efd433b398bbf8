// The only reader of process.env. One schema, validated once at start; a frozen Config comes out,
// or the process stops with a message naming the variable that is wrong.
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Type, type Static } from 'typebox';
import { cardConfig, cardVariables, type CardConfig, type CardVariables } from './config-card.js';
import { paypalConfig, paypalVariables, type PaypalConfig, type PaypalVariables } from './config-paypal.js';
import { chainConfigs, chainVariables, type ChainConfig, type ChainVariables } from './config-chains.js';
import { ConfigError } from './config-error.js';
import { parseSecretsKey } from './shared/secret-box.js';

export { ConfigError } from './config-error.js';
export type { ChainConfig } from './config-chains.js';
export type { CardConfig } from './config-card.js';
export type { PaypalConfig } from './config-paypal.js';

const Port = Type.Integer({ minimum: 0, maximum: 65535 });

const EnvSchema = Type.Object({
  COWRIE_DATABASE_URL: Type.String({ default: 'sqlite:./data/cowrie.db', pattern: '^(sqlite:|postgres://|postgresql://)' }),
  COWRIE_HOST: Type.String({ default: 'localhost', minLength: 1 }),
  COWRIE_LIVE_PORT: Type.Optional(Port),
  COWRIE_SANDBOX_PORT: Type.Optional(Port),
  COWRIE_LIVE_URL: Type.Optional(Type.String({ pattern: '^https?://.+/v1$' })),
  COWRIE_SANDBOX_URL: Type.Optional(Type.String({ pattern: '^https?://.+/v1$' })),
  COWRIE_RATE_LIMIT_LIVE: Type.Integer({ default: 100, minimum: 1 }),
  COWRIE_RATE_LIMIT_TEST: Type.Integer({ default: 25, minimum: 1 }),
  COWRIE_REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  COWRIE_TRUST_PROXY: Type.String({ default: '' }),
  COWRIE_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  COWRIE_DB_POOL_SIZE: Type.Integer({ default: 10, minimum: 1, maximum: 200 }),
  COWRIE_RATES_SOURCE: Type.Union([Type.Literal('file'), Type.Literal('http')], { default: 'file' }),
  COWRIE_RATES_FILE: Type.Optional(Type.String({ minLength: 1 })),
  COWRIE_RATES_URLS: Type.Optional(Type.String({ pattern: '^https?://[^,\\s]+(\\s*,\\s*https?://[^,\\s]+)*$' })),
  COWRIE_RATES_REFRESH_S: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  COWRIE_RATES_MAX_AGE_S: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800 })),
  COWRIE_JOB_INTERVAL_MS: Type.Integer({ default: 2000, minimum: 10, maximum: 60_000 }),
  COWRIE_ALLOW_PRIVATE_WEBHOOKS: Type.Union([Type.Literal('0'), Type.Literal('1')], { default: '0' }),
  COWRIE_WEBHOOK_BACKOFF_SCALE: Type.Number({ default: 1, exclusiveMinimum: 0, maximum: 1 }),
  COWRIE_WEBHOOK_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 100, maximum: 60_000 }),
  COWRIE_WEBHOOK_LEASE_MS: Type.Integer({ default: 25_000, minimum: 1_000, maximum: 30_000 }),
  COWRIE_WEBHOOK_CONCURRENCY: Type.Integer({ default: 64, minimum: 1, maximum: 1_000 }),
  COWRIE_NEW_MERCHANT_DAYS: Type.Integer({ default: 30, minimum: 0, maximum: 3650 }),
  COWRIE_PENDING_SETTLEMENT_DAYS: Type.Integer({ default: 3, minimum: 0, maximum: 365 }),
  COWRIE_REPORT_MAX_ROWS: Type.Integer({ default: 100_000, minimum: 1, maximum: 10_000_000 }),
  COWRIE_IDEMPOTENCY_LOCK_S: Type.Integer({ default: 60, minimum: 1, maximum: 3600 }),
  COWRIE_SECRETS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  COWRIE_ROLE: Type.Union([Type.Literal('all'), Type.Literal('api'), Type.Literal('worker')], { default: 'all' }),
  COWRIE_PROCESSES: Type.Integer({ default: 1, minimum: 1, maximum: 256 }),
  COWRIE_SHUTDOWN_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 600_000 }),
  COWRIE_METRICS_PORT: Type.Integer({ default: 9464, minimum: 0, maximum: 65535 }),
  COWRIE_MPESA_BASE_URL: Type.String({ default: 'https://api.safaricom.co.ke', pattern: '^https?://[^/]+(/.*)?$' }),
  COWRIE_MPESA_CONSUMER_KEY: Type.Optional(Type.String({ minLength: 1 })),
  COWRIE_MPESA_CONSUMER_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  COWRIE_MPESA_SHORTCODE: Type.Optional(Type.String({ pattern: '^[0-9]{5,7}$' })),
  COWRIE_MPESA_PASSKEY: Type.Optional(Type.String({ minLength: 1 })),
  COWRIE_MPESA_CALLBACK_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+/?$' })),
  COWRIE_MPESA_QUERY_AFTER_S: Type.Integer({ default: 30, minimum: 1, maximum: 3600 }),
  COWRIE_MPESA_INITIATOR_NAME: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  COWRIE_MPESA_SECURITY_CREDENTIAL: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  COWRIE_PASSWORD_HASH_COST: Type.Integer({ default: 15, minimum: 10, maximum: 20 }),
  COWRIE_PAYER_ACCOUNTS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  COWRIE_CHAIN_POLL_MS: Type.Integer({ default: 2000, minimum: 50, maximum: 600_000 }),
  COWRIE_CHAIN_BLOCK_RANGE: Type.Integer({ default: 1000, minimum: 1, maximum: 100_000 }),
  COWRIE_CHAIN_RPC_TIMEOUT_MS: Type.Integer({ default: 10_000, minimum: 100, maximum: 120_000 }),
  COWRIE_PAYOUT_AUTO_APPROVE: Type.String({ default: '0', pattern: '^[0-9]{1,15}(\\.[0-9]{1,6})?$' }),
  // Tests only: the payout sender kills its own process (kill -9) on reaching this step.
  COWRIE_TEST_PAYOUT_HALT: Type.Optional(Type.Union([Type.Literal('recorded'), Type.Literal('broadcast'), Type.Literal('confirming')])),
  ...chainVariables(),
  ...cardVariables(),
  ...paypalVariables(),
});

/** The live M-Pesa rail: on when its four credentials are set. */
export interface MpesaConfig {
  readonly baseUrl: string;
  readonly consumerKey: string;
  readonly consumerSecret: string;
  readonly shortcode: string;
  readonly passkey: string;
  /** The public origin Daraja can reach; callbacks go to `<origin>/rails/mpesa/callback/<token>`. */
  readonly callbackOrigin: string;
  readonly queryAfterS: number;
  /** The initiator of reversals (refunds); null when COWRIE_MPESA_INITIATOR_NAME and _SECURITY_CREDENTIAL are not set. */
  readonly initiator: { readonly name: string; readonly securityCredential: string } | null;
}

/** What a process does: `api` serves HTTP only, `worker` runs the background work only, `all` both. */
export type Role = 'all' | 'api' | 'worker';

export type Environment = 'live' | 'test';

/** The shipped rate table (config/rates.json at the package root; same depth from src/ and dist/). */
export const DEFAULT_RATES_FILE = fileURLToPath(new URL('../config/rates.json', import.meta.url));

/** Where reference prices come from: the rate table (`file`) or live sources (`http`). */
export type RatesConfig =
  | {
      readonly source: 'file';
      /** The rate table; never stale. */
      readonly file: string;
    }
  | {
      readonly source: 'http';
      /** Bases speaking Coinbase's exchange-rates protocol, all asked at every refresh. */
      readonly urls: readonly string[];
      readonly refreshMs: number;
      /** A price whose last good fetch is older than this is stale. */
      readonly maxAgeMs: number;
    };

export const DEFAULT_RATES_URL = 'https://api.coinbase.com';
export const DEFAULT_RATES_REFRESH_S = 60;
export const DEFAULT_RATES_MAX_AGE_S = 600;

export interface Config {
  readonly databaseUrl: string;
  readonly host: string;
  readonly livePort: number;
  readonly sandboxPort: number;
  /** Public base URLs, each ending in /v1. */
  readonly liveUrl: string;
  readonly sandboxUrl: string;
  readonly rateLimit: { readonly live: number; readonly test: number };
  /** Addresses or CIDR ranges of proxies whose X-Forwarded-For is believed; empty trusts none. */
  readonly trustProxy: readonly string[];
  readonly logLevel: string;
  readonly dbPoolSize: number;
  /** Where the rate limits' buckets live when set (COWRIE_REDIS_URL), shared by every process using it. */
  readonly redisUrl: string | null;
  /** Where reference prices come from: the rate table, or live sources over HTTP. */
  readonly rates: RatesConfig;
  /** How often background jobs (expiry sweep, ...) run. */
  readonly jobIntervalMs: number;
  /** The webhook delivery worker. */
  readonly webhooks: {
    /** Sandbox endpoints may use http and private or loopback addresses (local development, tests). */
    readonly allowPrivate: boolean;
    /** Multiplies every wait of the retry ladder (tests shrink it). */
    readonly backoffScale: number;
    readonly timeoutMs: number;
    /** How long a claimed delivery stays claimed; a dead worker's claim is claimable again after it. */
    readonly leaseMs: number;
    /** Deliveries in flight at once per process. */
    readonly concurrency: number;
  };
  /** Merchants younger than this many days settle `pending` for `pendingSettlementDays`. */
  readonly newMerchantDays: number;
  readonly pendingSettlementDays: number;
  /** The export ceiling of CSV reports (rows). */
  readonly reportMaxRows: number;
  /** scrypt's cost for console passwords and PINs, as a power of two (N = 2^cost); lowered by tests only. */
  readonly passwordHashCost: number;
  /** Live payer accounts: the wallet at /wallet and the balance offered on live intents settling in USDT or USDC. */
  readonly payerAccounts: boolean;
  /** How long the mark of an Idempotency-Key whose request's process died blocks a retry (ms). */
  readonly idempotencyLockMs: number;
  /**
   * COWRIE_SECRETS_KEY: the keys that seal webhook endpoint secrets, the sealing key first (the others only
   * open values during a rotation); empty when unset (src/secrets-key.ts then uses the SQLite key file).
   */
  readonly secretsKeys: readonly Buffer[];
  /** `all`, `api` (HTTP only) or `worker` (background work only). */
  readonly role: Role;
  /** Processes `cowrie serve` starts on this machine (node:cluster when more than one). */
  readonly processes: number;
  readonly shutdownTimeoutMs: number;
  /** Port of the Prometheus metrics listener; 0 turns it off. */
  readonly metricsPort: number;
  /** Null when the live M-Pesa rail is not configured. */
  readonly mpesa: MpesaConfig | null;
  /** Null when the live card rail (Paystack) is not configured. */
  readonly card: CardConfig | null;
  /** Null when the live PayPal rail is not configured. */
  readonly paypal: PaypalConfig | null;
  /** The configured on-chain networks of the live wallet rail (none: the live checkout offers no wallet). */
  readonly chains: readonly ChainConfig[];
  /** Live payouts up to this amount (decimal text, in their asset) go out without the operator's approval. */
  readonly payoutAutoApprove: string;
  /** Tests only: the payout sender kills its own process on reaching this step. */
  readonly testPayoutHalt: 'recorded' | 'broadcast' | 'confirming' | null;
  readonly chainWatch: {
    /** How often each network's watcher looks at its chain. */
    readonly pollMs: number;
    /** The most blocks one `eth_getLogs` covers. */
    readonly blockRange: number;
    /** One RPC call's limit before the next URL is tried. */
    readonly rpcTimeoutMs: number;
  };
}

type Env = Static<typeof EnvSchema>;

/**
 * Reads the environment once: the schema's check, then the checks across variables, then one frozen Config.
 * A variable of one part (M-Pesa, chains, rates) is read by that part's function below.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const c = validateEnv(env);
  const { livePort, sandboxPort, liveUrl, sandboxUrl } = listenerUrls(c);
  checkCrossVariables(c);
  const mpesa = mpesaConfig(c, liveUrl);
  const chains = chainConfigs(c as unknown as ChainVariables);
  const rates = ratesConfig(c);
  return Object.freeze({
    databaseUrl: c.COWRIE_DATABASE_URL,
    host: c.COWRIE_HOST,
    livePort,
    sandboxPort,
    liveUrl,
    sandboxUrl,
    rateLimit: Object.freeze({ live: c.COWRIE_RATE_LIMIT_LIVE, test: c.COWRIE_RATE_LIMIT_TEST }),
    redisUrl: c.COWRIE_REDIS_URL ?? null,
    trustProxy: Object.freeze(
      c.COWRIE_TRUST_PROXY.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    logLevel: c.COWRIE_LOG_LEVEL,
    dbPoolSize: c.COWRIE_DB_POOL_SIZE,
    rates,
    jobIntervalMs: c.COWRIE_JOB_INTERVAL_MS,
    webhooks: Object.freeze({
      allowPrivate: c.COWRIE_ALLOW_PRIVATE_WEBHOOKS === '1',
      backoffScale: c.COWRIE_WEBHOOK_BACKOFF_SCALE,
      timeoutMs: c.COWRIE_WEBHOOK_TIMEOUT_MS,
      leaseMs: c.COWRIE_WEBHOOK_LEASE_MS,
      concurrency: c.COWRIE_WEBHOOK_CONCURRENCY,
    }),
    newMerchantDays: c.COWRIE_NEW_MERCHANT_DAYS,
    pendingSettlementDays: c.COWRIE_PENDING_SETTLEMENT_DAYS,
    reportMaxRows: c.COWRIE_REPORT_MAX_ROWS,
    passwordHashCost: c.COWRIE_PASSWORD_HASH_COST,
    payerAccounts: c.COWRIE_PAYER_ACCOUNTS === 'on',
    idempotencyLockMs: c.COWRIE_IDEMPOTENCY_LOCK_S * 1000,
    secretsKeys: secretsKeys(c.COWRIE_SECRETS_KEY),
    role: c.COWRIE_ROLE,
    processes: c.COWRIE_PROCESSES,
    shutdownTimeoutMs: c.COWRIE_SHUTDOWN_TIMEOUT_MS,
    metricsPort: c.COWRIE_METRICS_PORT,
    mpesa,
    card: cardConfig(c as unknown as CardVariables, originOf(liveUrl)),
    paypal: paypalConfig(c as unknown as PaypalVariables, originOf(liveUrl)),
    chains,
    payoutAutoApprove: c.COWRIE_PAYOUT_AUTO_APPROVE,
    testPayoutHalt: c.COWRIE_TEST_PAYOUT_HALT ?? null,
    chainWatch: Object.freeze({
      pollMs: c.COWRIE_CHAIN_POLL_MS,
      blockRange: c.COWRIE_CHAIN_BLOCK_RANGE,
      rpcTimeoutMs: c.COWRIE_CHAIN_RPC_TIMEOUT_MS,
    }),
  });
}

/** The variables the schema knows, checked, converted and defaulted; a ConfigError lists every problem. */
function validateEnv(env: Record<string, string | undefined>): Env {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
  const validate = ajv.compile(EnvSchema);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, '') || String(e.params['missingProperty'] ?? '');
      // A secret's value is never repeated in an error (it would end up in logs).
      const secret = /SECRET|PASSKEY|CREDENTIAL|_KEY$|PAYOUT_KEY/.test(name);
      return `${name}: ${e.message ?? 'invalid'}${secret ? '' : ` (got ${JSON.stringify(env[name])})`}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return raw as Env;
}

/** The two listeners' ports and public URLs; on one port, the URLs must name different hosts. */
function listenerUrls(c: Env) {
  const livePort = c.COWRIE_LIVE_PORT ?? 4000;
  const sandboxPort = c.COWRIE_SANDBOX_PORT ?? 4001;
  const liveUrl = c.COWRIE_LIVE_URL ?? `http://localhost:${livePort}/v1`;
  const sandboxUrl = c.COWRIE_SANDBOX_URL ?? `http://localhost:${sandboxPort}/v1`;
  if (livePort === sandboxPort && livePort !== 0 && hostOf(liveUrl) === hostOf(sandboxUrl)) {
    throw new ConfigError(
      'Invalid configuration:\n  COWRIE_LIVE_PORT and COWRIE_SANDBOX_PORT are the same, so COWRIE_LIVE_URL and ' +
        'COWRIE_SANDBOX_URL must name different hosts (the Host header chooses the environment).',
    );
  }
  return { livePort, sandboxPort, liveUrl, sandboxUrl };
}

/** Rules that tie one variable to another, beyond what the schema says of each. */
function checkCrossVariables(c: Env): void {
  if (c.COWRIE_WEBHOOK_LEASE_MS < c.COWRIE_WEBHOOK_TIMEOUT_MS + 1_000) {
    throw new ConfigError(
      'Invalid configuration:\n  COWRIE_WEBHOOK_LEASE_MS must exceed COWRIE_WEBHOOK_TIMEOUT_MS by at least 1000, so a claim ' +
        'outlives the HTTP call it covers.',
    );
  }
  if (c.COWRIE_DATABASE_URL.startsWith('sqlite:') && (c.COWRIE_ROLE !== 'all' || c.COWRIE_PROCESSES > 1)) {
    throw new ConfigError(
      'Invalid configuration:\n  COWRIE_ROLE and COWRIE_PROCESSES: the embedded SQLite database serves one process with role ' +
        '`all`. To split API and workers or run several processes, use PostgreSQL (COWRIE_DATABASE_URL=postgres://…).',
    );
  }
}

/** COWRIE_SECRETS_KEY: one key, or several separated by commas during a rotation (the first seals). */
function secretsKeys(text: string | undefined): Buffer[] {
  try {
    const keys = (text ?? '')
      .split(',')
      .filter((k) => k.trim() !== '')
      .map(parseSecretsKey);
    if (new Set(keys.map((k) => k.toString('hex'))).size !== keys.length) throw new Error('it names a key twice');
    return keys;
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  COWRIE_SECRETS_KEY: ${(err as Error).message}`);
  }
}

/** The live M-Pesa rail: off when none of its four credentials is set, refused when only some are. */
function mpesaConfig(c: Env, liveUrl: string): MpesaConfig | null {
  const mpesaVars = [
    'COWRIE_MPESA_CONSUMER_KEY',
    'COWRIE_MPESA_CONSUMER_SECRET',
    'COWRIE_MPESA_SHORTCODE',
    'COWRIE_MPESA_PASSKEY',
  ] as const;
  const mpesaSet = mpesaVars.filter((k) => c[k] !== undefined);
  if (mpesaSet.length > 0 && mpesaSet.length < mpesaVars.length) {
    throw new ConfigError(
      `Invalid configuration:\n  the live M-Pesa rail needs all of ${mpesaVars.join(', ')}; missing: ${mpesaVars
        .filter((k) => c[k] === undefined)
        .join(', ')}`,
    );
  }
  const initiatorVars = ['COWRIE_MPESA_INITIATOR_NAME', 'COWRIE_MPESA_SECURITY_CREDENTIAL'] as const;
  const initiatorSet = initiatorVars.filter((k) => c[k] !== undefined);
  if (initiatorSet.length > 0 && mpesaSet.length === 0)
    throw new ConfigError(`Invalid configuration:\n  ${initiatorSet[0]} is set but the live M-Pesa rail is not (${mpesaVars.join(', ')})`);
  if (initiatorSet.length === 1)
    throw new ConfigError(
      `Invalid configuration:\n  M-Pesa reversals need both ${initiatorVars.join(' and ')}; missing: ${initiatorVars.find((k) => c[k] === undefined)}`,
    );
  if (mpesaSet.length === 0) return null;
  return Object.freeze({
    baseUrl: c.COWRIE_MPESA_BASE_URL.replace(/\/+$/, ''),
    consumerKey: c.COWRIE_MPESA_CONSUMER_KEY!,
    consumerSecret: c.COWRIE_MPESA_CONSUMER_SECRET!,
    shortcode: c.COWRIE_MPESA_SHORTCODE!,
    passkey: c.COWRIE_MPESA_PASSKEY!,
    callbackOrigin: (c.COWRIE_MPESA_CALLBACK_URL ?? originOf(liveUrl)).replace(/\/+$/, ''),
    queryAfterS: c.COWRIE_MPESA_QUERY_AFTER_S,
    initiator:
      initiatorSet.length === 2
        ? Object.freeze({ name: c.COWRIE_MPESA_INITIATOR_NAME!, securityCredential: c.COWRIE_MPESA_SECURITY_CREDENTIAL! })
        : null,
  });
}

/** Where reference prices come from: the shipped table (or COWRIE_RATES_FILE), or live sources over HTTP. */
function ratesConfig(c: Env): RatesConfig {
  // A variable of the other source is refused rather than ignored: COWRIE_RATES_URLS set without
  // COWRIE_RATES_SOURCE=http would otherwise leave every price on the shipped table, silently.
  const httpVars = ['COWRIE_RATES_URLS', 'COWRIE_RATES_REFRESH_S', 'COWRIE_RATES_MAX_AGE_S'] as const;
  if (c.COWRIE_RATES_SOURCE === 'file') {
    const stray = httpVars.find((k) => c[k] !== undefined);
    if (stray) throw new ConfigError(`Invalid configuration:\n  ${stray} is set but COWRIE_RATES_SOURCE is not http`);
    return Object.freeze({ source: 'file', file: c.COWRIE_RATES_FILE ?? DEFAULT_RATES_FILE });
  }
  if (c.COWRIE_RATES_FILE !== undefined) {
    throw new ConfigError(
      'Invalid configuration:\n  COWRIE_RATES_FILE is set but COWRIE_RATES_SOURCE is http (the table is not read then)',
    );
  }
  const refreshS = c.COWRIE_RATES_REFRESH_S ?? DEFAULT_RATES_REFRESH_S;
  const maxAgeS = c.COWRIE_RATES_MAX_AGE_S ?? DEFAULT_RATES_MAX_AGE_S;
  if (maxAgeS <= refreshS) {
    throw new ConfigError(
      `Invalid configuration:\n  COWRIE_RATES_MAX_AGE_S (${maxAgeS}) must exceed COWRIE_RATES_REFRESH_S (${refreshS}), or prices go stale between two refreshes`,
    );
  }
  const urls = (c.COWRIE_RATES_URLS ?? DEFAULT_RATES_URL).split(',').map((u) => u.trim().replace(/\/+$/, ''));
  if (new Set(urls).size !== urls.length) {
    throw new ConfigError('Invalid configuration:\n  COWRIE_RATES_URLS names a source twice (each source counts once in the median)');
  }
  return Object.freeze({ source: 'http', urls: Object.freeze(urls), refreshMs: refreshS * 1000, maxAgeMs: maxAgeS * 1000 });
}

/** host[:port] of a URL, lower-cased, as a Host header would carry it. */
export function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

/** The origin (scheme, host, port) of a base URL: where checkout pages and docs live, outside /v1. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** The live payment methods whose rails are configured, as the start-up banner and the console's home say them. */
export function liveMethodsOf(config: Pick<Config, 'mpesa' | 'card' | 'paypal' | 'chains' | 'payerAccounts'>): string[] {
  const on: string[] = [];
  if (config.payerAccounts) on.push('account balance (payer accounts, USDT and USDC)');
  if (config.mpesa) on.push('M-Pesa (Daraja)');
  if (config.card) on.push('card in KES and USD (Paystack)');
  if (config.paypal) on.push('PayPal in every currency but KES');
  if (config.chains.length > 0) on.push(`crypto wallet (${config.chains.map((c) => c.network.toUpperCase()).join(', ')})`);
  return on;
}
