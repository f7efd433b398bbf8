// One call to one price source, in Coinbase's public exchange-rates protocol:
//   GET <base>/v2/exchange-rates?currency=<ASSET>
//   → {"data": {"currency": "<ASSET>", "rates": {"<FIAT>": "<fiat per asset>", …}}}
// Each fiat price must be a positive decimal string; any other is skipped (and named in `problems`), the
// rest of the answer is kept. An answer that is not that shape, a status other than 200, an error or a
// call past its time limit gives no price at all.
import { DECIMAL_PATTERN, Decimal, FIAT_CURRENCIES, type FiatCurrency, type SettlementAsset } from '../../shared/money.js';

/** A source that has not answered within 5 s is skipped: it gives no price this time. */
export const RATE_SOURCE_TIMEOUT_MS = 5_000;
/** An exchange-rates answer is a few kilobytes; a source sending more is not answering the protocol. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const DECIMAL_RE = new RegExp(DECIMAL_PATTERN);
/** Longer than any real price (and than the 60 digits of our decimals). */
const MAX_PRICE_LENGTH = 60;

/** How a call went: every price read (`ok`), some skipped (`partial`), none usable, or no answer. */
export type FetchOutcome = 'ok' | 'partial' | 'malformed' | 'timeout' | 'error';

export interface SourceAnswer {
  outcome: FetchOutcome;
  prices: Map<FiatCurrency, Decimal>;
  /** What was wrong, for the log: a skipped price, a bad answer, an error. */
  problems: string[];
}

class Malformed extends Error {}

export async function fetchSourcePrices(
  base: string,
  asset: SettlementAsset,
  timeoutMs: number = RATE_SOURCE_TIMEOUT_MS,
): Promise<SourceAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  const none = (outcome: FetchOutcome, problem: string): SourceAnswer => ({ outcome, prices: new Map(), problems: [problem] });
  try {
    // undici loads on the first call: a server on the rate table never needs it.
    const { request } = await import('undici');
    const res = await request(`${base}/v2/exchange-rates?currency=${encodeURIComponent(asset)}`, {
      method: 'GET',
      headers: { accept: 'application/json' },
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        res.body.destroy();
        throw new Malformed(`answered more than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    if (res.statusCode !== 200) return none('error', `answered HTTP ${res.statusCode}`);
    return readAnswer(asset, Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    if (err instanceof Malformed) return none('malformed', err.message);
    if (signal.aborted) return none('timeout', `did not answer within ${timeoutMs} ms`);
    const e = err as Error & { code?: string };
    if (e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
      return none('timeout', `did not answer within ${timeoutMs} ms`);
    }
    return none('error', e.code ? `${e.code}: ${e.message}` : e.message);
  }
}

/** The prices of one answer's text. */
export function readAnswer(asset: SettlementAsset, text: string): SourceAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: 'malformed', prices: new Map(), problems: ['answered something that is not JSON'] };
  }
  const data = (body as { data?: unknown } | null)?.data as { currency?: unknown; rates?: unknown } | undefined;
  if (!data || typeof data !== 'object' || typeof data.rates !== 'object' || data.rates === null || Array.isArray(data.rates)) {
    return { outcome: 'malformed', prices: new Map(), problems: ['answered without data.rates'] };
  }
  if (data.currency !== asset) {
    return { outcome: 'malformed', prices: new Map(), problems: [`answered the rates of ${JSON.stringify(data.currency)}, not ${asset}`] };
  }
  const rates = data.rates as Record<string, unknown>;
  const prices = new Map<FiatCurrency, Decimal>();
  const problems: string[] = [];
  for (const currency of FIAT_CURRENCIES) {
    if (!Object.hasOwn(rates, currency)) {
      problems.push(`no ${currency} price`);
      continue;
    }
    const value = rates[currency];
    if (typeof value !== 'string' || value.length > MAX_PRICE_LENGTH || !DECIMAL_RE.test(value) || !new Decimal(value).gt(0)) {
      problems.push(`${currency} price ${JSON.stringify(value)?.slice(0, 40)} is not a positive decimal string`);
      continue;
    }
    prices.set(currency, new Decimal(value));
  }
  const outcome: FetchOutcome = problems.length === 0 ? 'ok' : prices.size > 0 ? 'partial' : 'malformed';
  return { outcome, prices, problems };
}
