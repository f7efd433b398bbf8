// The only reader of process.env. One schema, validated once at start; a frozen Config comes out,
// or the process stops with a message naming the variable that is wrong.
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Type, type Static } from 'typebox';

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
  COWRIE_TRUST_PROXY: Type.String({ default: '' }),
  COWRIE_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  COWRIE_DB_POOL_SIZE: Type.Integer({ default: 10, minimum: 1, maximum: 200 }),
  COWRIE_RATES_FILE: Type.Optional(Type.String({ minLength: 1 })),
  COWRIE_JOB_INTERVAL_MS: Type.Integer({ default: 2000, minimum: 10, maximum: 60_000 }),
});

export type Environment = 'live' | 'test';

/** The shipped rate table (config/rates.json at the package root; same depth from src/ and dist/). */
export const DEFAULT_RATES_FILE = fileURLToPath(new URL('../config/rates.json', import.meta.url));

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
  /** The rate table read by the built-in rate provider. */
  readonly ratesFile: string;
  /** How often background jobs (expiry sweep, ...) run. */
  readonly jobIntervalMs: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
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
      return `${name}: ${e.message ?? 'invalid'} (got ${JSON.stringify(env[name])})`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const c = raw as Static<typeof EnvSchema>;
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
  return Object.freeze({
    databaseUrl: c.COWRIE_DATABASE_URL,
    host: c.COWRIE_HOST,
    livePort,
    sandboxPort,
    liveUrl,
    sandboxUrl,
    rateLimit: Object.freeze({ live: c.COWRIE_RATE_LIMIT_LIVE, test: c.COWRIE_RATE_LIMIT_TEST }),
    trustProxy: Object.freeze(
      c.COWRIE_TRUST_PROXY.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    logLevel: c.COWRIE_LOG_LEVEL,
    dbPoolSize: c.COWRIE_DB_POOL_SIZE,
    ratesFile: c.COWRIE_RATES_FILE ?? DEFAULT_RATES_FILE,
    jobIntervalMs: c.COWRIE_JOB_INTERVAL_MS,
  });
}

/** host[:port] of a URL, lower-cased, as a Host header would carry it. */
export function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

/** The origin (scheme, host, port) of a base URL: where checkout pages and docs live, outside /v1. */
export function originOf(url: string): string {
  return new URL(url).origin;
}
