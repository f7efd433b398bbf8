// Payment and settlement reports: a window of inclusive UTC dates by the merchant's clock, as JSON pages or
// as one streamed CSV attachment.
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { DAY_MS, isoTime, type MerchantClocks } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import {
  PAYMENT_REPORT_COLUMNS,
  countPaidPayments,
  paidPaymentCursor,
  paidPaymentsPage,
  type PaymentReportRow,
} from '../payment-intents/index.js';
import * as repo from './reports.repo.js';
import type { Db } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';
import { unknownCursor, type Page } from '../../db/pagination.js';

export const MAX_WINDOW_DAYS = 366;
export const DEFAULT_WINDOW_DAYS = 30;
/** Rows fetched per query while a CSV streams. */
export const CSV_BATCH = 1000;

export interface ReportWindow extends repo.Window {
  from: string;
  to: string;
}

/** A calendar date `YYYY-MM-DD` as UTC midnight, or null when it is not a real date. */
function parseDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return isoTime(ms).slice(0, 10) === text ? ms : null;
}

export function dateOf(ms: number): string {
  return isoTime(ms).slice(0, 10);
}

/** `from` and `to`: inclusive UTC dates; `to` defaults to today and `from` to 30 days before it. */
export function reportWindow(nowMs: number, from?: string, to?: string): ReportWindow {
  const today = parseDate(dateOf(nowMs))!;
  const toMs = to === undefined ? today : parseDate(to);
  if (toMs === null) throw new AppError('parameter_invalid', 'Invalid to: must be a date YYYY-MM-DD', { param: 'to' });
  const fromMs = from === undefined ? today - DEFAULT_WINDOW_DAYS * DAY_MS : parseDate(from);
  if (fromMs === null) throw new AppError('parameter_invalid', 'Invalid from: must be a date YYYY-MM-DD', { param: 'from' });
  if (fromMs > toMs)
    throw new AppError('parameter_invalid', `Invalid from: ${dateOf(fromMs)} is after to (${dateOf(toMs)})`, { param: 'from' });
  if (toMs - fromMs > MAX_WINDOW_DAYS * DAY_MS) {
    throw new AppError(
      'parameter_invalid',
      `Invalid from: the window from ${dateOf(fromMs)} to ${dateOf(toMs)} is longer than ${MAX_WINDOW_DAYS} days`,
      {
        param: 'from',
      },
    );
  }
  return { from: dateOf(fromMs), to: dateOf(toMs), startMs: fromMs, endMs: toMs + DAY_MS };
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));

export const PAYMENT_COLUMNS = PAYMENT_REPORT_COLUMNS;
export const SETTLEMENT_COLUMNS = ['id', 'payment_intent', 'asset', 'amount', 'status', 'settled_at', 'available_at'] as const;

export type PaymentReportRecord = Record<(typeof PAYMENT_COLUMNS)[number], string | null>;
export type SettlementReportRecord = Record<(typeof SETTLEMENT_COLUMNS)[number], string | null>;

interface ReportKind<R, V> {
  name: 'payments' | 'settlements';
  columns: readonly string[];
  count(db: Db, scope: MerchantScope, w: repo.Window): Promise<number>;
  page(db: Db, scope: MerchantScope, w: repo.Window, after: repo.KeyCursor | null, limit: number): Promise<R[]>;
  cursor(db: Db, scope: MerchantScope, id: string): Promise<repo.KeyCursor | null>;
  keyOf(row: R): repo.KeyCursor;
  view(row: R): V;
}

export const PAYMENTS_REPORT: ReportKind<PaymentReportRow, PaymentReportRecord> = {
  name: 'payments',
  columns: PAYMENT_COLUMNS,
  count: countPaidPayments,
  page: paidPaymentsPage,
  cursor: paidPaymentCursor,
  keyOf: (r) => ({ at: r.paid_at!, id: r.id }),
  view: (r) => ({
    id: r.id,
    created_at: isoTime(r.created_at),
    paid_at: iso(r.paid_at),
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    settlement_currency: r.settlement_currency,
    pay_amount: r.pay_amount,
    payment_method: r.payment_method,
    merchant_reference: r.merchant_reference,
  }),
};

export const SETTLEMENTS_REPORT: ReportKind<repo.SettlementReportRow, SettlementReportRecord> = {
  name: 'settlements',
  columns: SETTLEMENT_COLUMNS,
  count: repo.countSettlements,
  page: repo.settlementsPage,
  cursor: repo.settlementCursor,
  keyOf: (r) => ({ at: r.settled_at, id: r.id }),
  view: (r) => ({
    id: r.id,
    payment_intent: r.payment_intent_id,
    asset: r.asset,
    amount: r.amount,
    status: r.status,
    settled_at: isoTime(r.settled_at),
    available_at: iso(r.available_at),
  }),
};

export interface ReportDeps {
  db: Db;
  clocks: MerchantClocks;
  /** The export ceiling of CSV reports (rows). */
  maxRows: number;
}

export interface ReportQuery {
  from?: string;
  to?: string;
  limit: number;
  starting_after?: string;
}

export async function windowFor(deps: ReportDeps, scope: MerchantScope, q: { from?: string; to?: string }): Promise<ReportWindow> {
  return reportWindow(await deps.clocks.nowMs(scope), q.from, q.to);
}

export async function reportPage<R, V>(deps: ReportDeps, kind: ReportKind<R, V>, scope: MerchantScope, q: ReportQuery): Promise<Page<V>> {
  const w = await windowFor(deps, scope, q);
  let after: repo.KeyCursor | null = null;
  if (q.starting_after !== undefined) {
    after = await kind.cursor(deps.db, scope, q.starting_after);
    if (!after) throw unknownCursor(q.starting_after);
  }
  const rows = await kind.page(deps.db, scope, w, after, q.limit + 1);
  return { object: 'list', data: rows.slice(0, q.limit).map(kind.view), has_more: rows.length > q.limit };
}

/**
 * A spreadsheet runs a cell that starts with =, +, - or @ (and tab or carriage return, which some read
 * the same way) as a formula; such text is sent with a leading apostrophe so it shows as text.
 */
export function protectCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export interface CsvExport {
  filename: string;
  stream: Readable;
}

/**
 * The whole window as CSV, refused with report_too_large over the export ceiling. Rows are read in
 * batches on (time, id) keys as the client reads, so memory stays flat whatever the window holds.
 */
export async function reportCsv<R, V extends Record<string, string | null>>(
  deps: ReportDeps,
  kind: ReportKind<R, V>,
  scope: MerchantScope,
  q: { from?: string; to?: string },
  onError: (err: unknown) => void,
): Promise<CsvExport> {
  const w = await windowFor(deps, scope, q);
  const rows = await kind.count(deps.db, scope, w);
  if (rows > deps.maxRows) {
    throw new AppError(
      'report_too_large',
      `The window from ${w.from} to ${w.to} holds ${rows} rows, more than the export ceiling of ${deps.maxRows}; narrow from and to and download it in parts.`,
    );
  }
  const options = { columns: [...kind.columns], record_delimiter: 'windows', cast: { string: protectCell } } as const;
  // Each batch becomes one chunk of CSV text: a few large writes to the socket instead of a stream
  // operation per row, so the garbage a row leaves is small and short-lived.
  async function* chunks(): AsyncGenerator<string> {
    let after: repo.KeyCursor | null = null;
    let header = true;
    for (;;) {
      const batch: R[] = await kind.page(deps.db, scope, w, after, CSV_BATCH);
      if (batch.length > 0 || header) yield stringify(batch.map(kind.view), { ...options, header });
      header = false;
      if (batch.length < CSV_BATCH) return;
      after = kind.keyOf(batch[batch.length - 1]!);
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false });
  // A failure while streaming destroys the stream: the client sees the connection cut short, never a
  // partial file passed off as whole.
  stream.on('error', onError);
  return { filename: `${kind.name}_${w.from}_${w.to}.csv`, stream };
}

/** The reports, for routes and the console. */
export class ReportService {
  constructor(private readonly deps: ReportDeps) {}

  page<R, V>(kind: ReportKind<R, V>, scope: MerchantScope, q: ReportQuery): Promise<Page<V>> {
    return reportPage(this.deps, kind, scope, q);
  }

  csv<R, V extends Record<string, string | null>>(
    kind: ReportKind<R, V>,
    scope: MerchantScope,
    q: { from?: string; to?: string },
    onError: (err: unknown) => void,
  ): Promise<CsvExport> {
    return reportCsv(this.deps, kind, scope, q, onError);
  }
}
