// The owner's view of payments: the search box read every way it can mean (an id or reference prefix, a
// customer's email or phone, an exact amount), the filters (days in the merchant's zone, status, method),
// the CSV of exactly what the filter shows, and the home page's 30-day volume per payment currency.
import { stringify } from 'csv-stringify';
import type { Readable } from 'node:stream';
import type { Db } from '../../db/transaction.js';
import { dayIn, dayStartIn, isDay } from '../../shared/display.js';
import { Decimal, decimalsOf, isAsset, isFiat } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import * as repo from './payment-search.repo.js';

export const PAYMENT_STATUSES = ['awaiting_payment', 'confirming', 'paid', 'failed', 'expired', 'cancelled', 'refunded'];
export const PAYMENT_METHODS = ['service_balance', 'mpesa', 'card', 'paypal', 'external_wallet'];
/** The most rows one CSV download holds. */
export const EXPORT_MAX_ROWS = 100_000;

/** The filter as the page's form sends it (query text). */
export interface FilterQuery {
  q?: string;
  status?: string;
  method?: string;
  from?: string;
  to?: string;
}

/** The filter as read, with what the form should show again and the words of anything refused. */
export interface ReadFilter {
  filter: repo.PaymentFilter;
  shown: { q: string; status: string; method: string; from: string; to: string };
  error?: string;
}

/** The ways a search text can match: each reading that fits it. */
export function readSearch(text: string): NonNullable<repo.PaymentFilter['search']> {
  const t = text.trim().slice(0, 255);
  const s: NonNullable<repo.PaymentFilter['search']> = { referencePrefix: t };
  if (/^pi_[0-9A-Za-z]*$/.test(t)) s.idPrefix = t;
  if (t.includes('@')) s.email = [...new Set([t, t.toLowerCase()])];
  const digits = t.replace(/[\s().-]/g, '');
  if (/^\+?[0-9]{7,15}$/.test(digits)) {
    const phones = new Set([digits]);
    // A Kenyan number as people write it (07…, 01…) is stored in its international form.
    if (/^0[17][0-9]{8}$/.test(digits)) phones.add(`+254${digits.slice(1)}`);
    if (/^254[0-9]{9}$/.test(digits)) phones.add(`+${digits}`);
    s.phone = [...phones];
  }
  const plain = t.replace(/,/g, '');
  if (/^[0-9]{1,15}(\.[0-9]{1,18})?$/.test(plain)) {
    const d = new Decimal(plain);
    // Amounts are stored with their currency's decimals: 1500 is 1500, 1500.00, 1500.000000, …
    s.amounts = [...new Set([0, 2, 3, 6, 8, 9, 18].filter((n) => d.decimalPlaces() <= n).map((n) => d.toFixed(n)))];
  }
  return s;
}

/** Reads the form's filter; a date that is not a day, or `from` after `to`, is refused in words. */
export function readFilter(query: FilterQuery, timeZone: string): ReadFilter {
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const shown = { q: text(query.q), status: text(query.status), method: text(query.method), from: text(query.from), to: text(query.to) };
  const filter: repo.PaymentFilter = {};
  let error: string | undefined;
  if (shown.q) filter.search = readSearch(shown.q);
  if (PAYMENT_STATUSES.includes(shown.status)) filter.status = shown.status;
  else shown.status = '';
  if (PAYMENT_METHODS.includes(shown.method)) filter.method = shown.method;
  else shown.method = '';
  for (const side of ['from', 'to'] as const) {
    if (!shown[side]) continue;
    if (!isDay(shown[side])) {
      error = `“${shown[side].slice(0, 40)}” is not a date: write it as YYYY-MM-DD.`;
      continue;
    }
    if (side === 'from') filter.from = dayStartIn(shown.from, timeZone);
    else filter.to = dayStartIn(nextDay(shown.to), timeZone);
  }
  if (!error && filter.from !== undefined && filter.to !== undefined && filter.from >= filter.to) {
    error = 'The first day is after the last: nothing can match.';
  }
  return error ? { filter, shown, error } : { filter, shown };
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** One page of the filtered payments' ids (newest first) and the id to continue after. */
export async function filteredPage(
  db: Db,
  scope: MerchantScope,
  filter: repo.PaymentFilter,
  after: string | undefined,
  limit: number,
): Promise<{ ids: string[]; next?: string }> {
  let cursor = null;
  if (after) {
    const at = await repo.intentCreatedAt(db, scope, after);
    if (at !== undefined) cursor = { created_at: at, id: after };
  }
  const ids = await repo.filteredIntentIds(db, scope, filter, cursor, limit);
  return ids.length > limit ? { ids: ids.slice(0, limit), next: ids[limit - 1] } : { ids };
}

const ms = (v: number | string | null) => (v === null ? '' : new Date(Number(v)).toISOString());

/** The filtered payments as CSV (the payment report's columns), newest first, streamed page by page. */
export function filteredCsv(db: Db, scope: MerchantScope, filter: repo.PaymentFilter): Readable {
  const csv = stringify({
    header: true,
    columns: [
      'id',
      'created_at',
      'paid_at',
      'status',
      'amount',
      'currency',
      'settlement_currency',
      'pay_amount',
      'payment_method',
      'merchant_reference',
    ],
  });
  void (async () => {
    let cursor: { created_at: number; id: string } | null = null;
    let sent = 0;
    try {
      while (sent < EXPORT_MAX_ROWS) {
        const rows = await repo.filteredIntentRows(db, scope, filter, cursor, Math.min(1000, EXPORT_MAX_ROWS - sent));
        for (const r of rows) {
          const more = csv.write({ ...r, created_at: ms(r.created_at), paid_at: ms(r.paid_at), payment_method: r.payment_method ?? '' });
          if (!more) await new Promise((resolve) => csv.once('drain', resolve));
        }
        sent += rows.length;
        if (rows.length < 1000) break;
        const last = rows.at(-1)!;
        cursor = { created_at: Number(last.created_at), id: last.id };
      }
      csv.end();
    } catch (err) {
      csv.destroy(err as Error);
    }
  })();
  return csv;
}

export interface Volume {
  /** The 30 days, oldest first (YYYY-MM-DD in the merchant's zone). */
  days: string[];
  /** Per payment currency: the total, the count, and each day's total (decimal strings). */
  currencies: Array<{ currency: string; total: string; count: number; perDay: string[] }>;
}

/** Paid payments of the last 30 days (today included, in the merchant's zone), per currency and day. */
export async function volume(db: Db, scope: MerchantScope, nowMs: number, timeZone: string): Promise<Volume> {
  const today = dayIn(nowMs, timeZone);
  const days = Array.from({ length: 30 }, (_, i) =>
    new Date(Date.parse(`${today}T00:00:00Z`) - (29 - i) * 86_400_000).toISOString().slice(0, 10),
  );
  const starts = days.map((d) => dayStartIn(d, timeZone));
  const rows = await repo.paidVolume(db, scope, starts[0]!);
  const by = new Map<string, { total: Decimal; count: number; perDay: Decimal[] }>();
  for (const r of rows) {
    const decimals = isFiat(r.currency) || isAsset(r.currency) ? decimalsOf(r.currency) : 2;
    const amount = new Decimal(r.minor).div(new Decimal(10).pow(decimals));
    const at = r.quarter * 900_000;
    let day = starts.length - 1;
    while (day > 0 && starts[day]! > at) day--;
    const c = by.get(r.currency) ?? { total: new Decimal(0), count: 0, perDay: days.map(() => new Decimal(0)) };
    c.total = c.total.plus(amount);
    c.count += r.count;
    c.perDay[day] = c.perDay[day]!.plus(amount);
    by.set(r.currency, c);
  }
  const currencies = [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, c]) => {
      const d = isFiat(currency) || isAsset(currency) ? decimalsOf(currency) : 2;
      return { currency, total: c.total.toFixed(d), count: c.count, perDay: c.perDay.map((x) => x.toFixed(d)) };
    });
  return { days, currencies };
}
