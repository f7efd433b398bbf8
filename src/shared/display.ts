// How people read money, times and statuses, the same on every page of the console and the checkout:
// amounts with the currency's grouping and decimals ("KES 1,500.00"), times in the merchant's time zone
// (an IANA name, through Intl), statuses in words ("Awaiting payment"). Amounts stay decimal strings: Intl
// formats a numeric string exactly, never through a float.
import { decimalsOf, isAsset, isFiat } from './money.js';

/** The time zone a merchant starts with. */
export const DEFAULT_TIME_ZONE = 'Africa/Nairobi';

const numberFormats = new Map<number, Intl.NumberFormat>();
function numberFormat(decimals: number): Intl.NumberFormat {
  let f = numberFormats.get(decimals);
  if (!f) {
    f = new Intl.NumberFormat('en', { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: true });
    numberFormats.set(decimals, f);
  }
  return f;
}

/** A decimal string with the unit's grouping and decimals: "1,500.00". An unknown unit keeps the amount's own decimals. */
export function groupedAmount(amount: string, unit: string): string {
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(amount)) return amount;
  const decimals = isFiat(unit) || isAsset(unit) ? decimalsOf(unit) : (amount.split('.')[1]?.length ?? 0);
  // A string argument is formatted exactly (Intl.NumberFormat v3), so no precision is lost.
  return numberFormat(decimals).format(amount as unknown as number);
}

/** Money as everyone reads it: the currency's code, then the grouped amount ("KES 1,500.00", "USDT 11.607590"). */
export function formatMoney(amount: string, unit: string): string {
  return `${unit} ${groupedAmount(amount, unit)}`;
}

/** Whether the text is an IANA time zone name this runtime knows. */
export function isTimeZone(text: string): boolean {
  if (!/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(text) && text !== 'UTC') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: text });
    return true;
  } catch {
    return false;
  }
}

/** Every IANA zone the runtime knows, for the owner's choice. */
export function timeZones(): string[] {
  return Intl.supportedValuesOf('timeZone');
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();
function timeFormat(tz: string): Intl.DateTimeFormat {
  let f = timeFormats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: tz,
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    timeFormats.set(tz, f);
  }
  return f;
}

const toMs = (t: number | string): number => (typeof t === 'number' ? t : Date.parse(t));

/** A moment in the zone, as "27 Nov 2026, 09:31". */
export function formatTime(t: number | string, tz: string): string {
  const ms = toMs(t);
  return Number.isFinite(ms) ? timeFormat(tz).format(ms) : String(t);
}

/** The calendar day (YYYY-MM-DD) of a moment in the zone. */
export function dayIn(t: number | string, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(
    toMs(t),
  );
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The zone's offset from UTC at a moment, in ms. */
function offsetMs(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The first millisecond (UTC) of a calendar day (YYYY-MM-DD) in the zone. */
export function dayStartIn(day: string, tz: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  // Twice: the offset at the day's start may differ from the offset at midnight UTC (a DST change).
  const first = guess - offsetMs(guess, tz);
  return guess - offsetMs(first, tz);
}

/** Whether the text is a real calendar day written YYYY-MM-DD. */
export function isDay(text: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

const WORDS: Record<string, string> = {
  awaiting_payment: 'Awaiting payment',
  requires_payment: 'Awaiting payment',
  in_review: 'In review',
  on_hold: 'On hold',
};

const METHODS: Record<string, string> = {
  service_balance: 'Service balance',
  mpesa: 'M-Pesa',
  card: 'Card',
  paypal: 'PayPal',
  external_wallet: 'External wallet',
};

/** A payment method's name: "mpesa" is "M-Pesa". */
export const methodWords = (method: string): string => METHODS[method] ?? statusWords(method);

/** A status in words: "awaiting_payment" is "Awaiting payment", "paid" is "Paid". */
export function statusWords(status: string): string {
  const known = WORDS[status];
  if (known) return known;
  const words = status.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
