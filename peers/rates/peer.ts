// A local price source for tests and a laptop, speaking Coinbase's public exchange-rates protocol (as
// Coinbase documents it at docs.cdp.coinbase.com):
//   GET /v2/exchange-rates?currency=<ASSET>
//   → 200 {"data": {"currency": "<ASSET>", "rates": {"<CODE>": "<CODE per one ASSET>", …}}}
// with every price a decimal string, other currencies than Cowrie's among them (as Coinbase answers
// about every currency it knows); an unknown or missing currency answers 400 {"errors": [...]}. Its prices
// start as the shipped rate table (config/rates.json). Tests set prices (any JSON value, to send a
// malformed or non-positive one), make it answer late (setDelay), fail (setMode: an HTTP 500, text that
// is not JSON, the rates of another currency, an answer without data) or fail the next requests only
// (failNext). Each control method is also reachable as POST /__peer/<name> with a JSON body, for other
// processes and for `npm run rates-peer` (main.ts).
import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { startPeerServer, type Answer, type PeerServer } from '../shared/http-peer.js';

export type RatesPeerMode = 'ok' | 'error' | 'not_json' | 'wrong_currency' | 'no_data';
const MODES: readonly RatesPeerMode[] = ['ok', 'error', 'not_json', 'wrong_currency', 'no_data'];

/** The shipped table: `prices[asset][fiat]`. */
export function shippedPrices(): Record<string, Record<string, unknown>> {
  const table = JSON.parse(readFileSync(new URL('../../config/rates.json', import.meta.url), 'utf8')) as {
    prices: Record<string, Record<string, string>>;
  };
  return structuredClone(table.prices);
}

export interface RatesPeer extends PeerServer {
  /** The prices it answers now, by asset then currency. */
  readonly prices: Record<string, Record<string, unknown>>;
  /** One price; any JSON value (a string for a real one). */
  setPrice(asset: string, currency: string, value: unknown): void;
  /** Every price of `asset` (or of every asset) multiplied by `factor`: the market moving. */
  scale(factor: string | number, asset?: string): void;
  /** Answers `ms` late: every asset's calls, or one asset's. */
  setDelay(ms: number, asset?: string): void;
  /** How it answers: every asset's calls, or one asset's. */
  setMode(mode: RatesPeerMode, asset?: string): void;
  /** Back to the shipped prices, no delay, answering normally. */
  reset(): void;
  /** Calls received for `asset`. */
  callsFor(asset: string): number;
}

export async function startRatesPeer(opts: { host?: string; port?: number } = {}): Promise<RatesPeer> {
  const prices = shippedPrices();
  const delays = new Map<string, number>();
  const modes = new Map<string, RatesPeerMode>();
  const of = <T>(map: Map<string, T>, asset: string, fallback: T): T => map.get(asset) ?? map.get('*') ?? fallback;

  const setPrice = (asset: string, currency: string, value: unknown) => {
    (prices[asset] ??= {})[currency] = value;
  };
  const scale = (factor: string | number, asset?: string) => {
    for (const a of asset ? [asset] : Object.keys(prices)) {
      for (const [c, v] of Object.entries(prices[a] ?? {})) {
        if (typeof v === 'string') prices[a]![c] = new Decimal(v).mul(factor).toFixed();
      }
    }
  };
  const setDelay = (ms: number, asset?: string) => {
    delays.set(asset ?? '*', ms);
  };
  const setMode = (mode: RatesPeerMode, asset?: string) => {
    if (!MODES.includes(mode)) throw new Error(`mode must be one of ${MODES.join(', ')}`);
    modes.set(asset ?? '*', mode);
  };
  const reset = () => {
    for (const asset of Object.keys(prices)) delete prices[asset];
    Object.assign(prices, shippedPrices());
    delays.clear();
    modes.clear();
  };

  const answerFor = (asset: string): Answer => {
    const mode = of(modes, asset, 'ok');
    if (mode === 'error') return { status: 500, body: { errors: [{ id: 'internal_server_error', message: 'Internal server error' }] } };
    if (mode === 'not_json') return { status: 200, body: '<html><body>Service temporarily unavailable</body></html>' };
    if (mode === 'no_data') return { status: 200, body: { warnings: [] } };
    const rates: Record<string, unknown> = { ...prices[asset] };
    // Coinbase answers every currency it knows: a few more than Cowrie takes, which it must ignore.
    const usd = rates['USD'];
    if (typeof usd === 'string' && /^[0-9.]+$/.test(usd)) {
      rates['JPY'] = new Decimal(usd).mul(150).toFixed(2);
      rates['XAU'] = new Decimal(usd).div(2650).toFixed(8);
    }
    return { status: 200, body: { data: { currency: mode === 'wrong_currency' ? `${asset}X` : asset, rates } } };
  };

  const server = await startPeerServer({
    host: opts.host,
    port: opts.port,
    control: {
      setPrice: (args, f) => {
        setPrice(String(args[0] ?? f['asset']), String(args[1] ?? f['currency']), args.length > 0 ? args[2] : f['value']);
        return { ok: true };
      },
      scale: (args, f) => {
        const factor = (args[0] ?? f['factor']) as string | number;
        const asset = (args[1] ?? f['asset']) as string | undefined;
        scale(factor, asset);
        return { ok: true };
      },
      setDelay: (args, f) => {
        setDelay(Number(args[0] ?? f['ms'] ?? 0), (args[1] ?? f['asset']) as string | undefined);
        return { ok: true };
      },
      setMode: (args, f) => {
        setMode(String(args[0] ?? f['mode']) as RatesPeerMode, (args[1] ?? f['asset']) as string | undefined);
        return { ok: true };
      },
      reset: () => {
        reset();
        return { ok: true };
      },
      prices: () => prices,
    },
    failure: (status) => ({ status, body: { errors: [{ id: 'service_unavailable', message: 'Service unavailable' }] } }),
    answer: (req) => {
      if (req.method !== 'GET' || req.path !== '/v2/exchange-rates') {
        return { status: 404, body: { errors: [{ id: 'not_found', message: 'Not found' }] } };
      }
      const asset = req.query['currency'] ?? '';
      if (!Object.hasOwn(prices, asset)) return { status: 400, body: { errors: [{ id: 'invalid_request', message: 'Invalid currency' }] } };
      const answer = answerFor(asset);
      const delay = of(delays, asset, 0);
      if (delay <= 0) return answer;
      return new Promise<Answer>((resolve) => setTimeout(() => resolve(answer), delay).unref());
    },
  });

  return Object.assign(server, {
    prices,
    setPrice,
    scale,
    setDelay,
    setMode,
    reset,
    callsFor: (asset: string) => server.requests.filter((r) => r.query['currency'] === asset).length,
  });
}
