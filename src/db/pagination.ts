// Forward cursors for every list: newest first by creation time, ties broken by id, so
// paging never repeats or skips a record; `starting_after` must name a record of this merchant and
// environment.
import type { SelectQueryBuilder } from 'kysely';
import { AppError } from '../shared/errors.js';
import { keysetBefore, type Engine } from './dialect.js';

export interface Cursor {
  id: string;
  created_at: number;
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export function unknownCursor(id: string): AppError {
  return new AppError('parameter_invalid', `Invalid starting_after: no record '${id.slice(0, 80)}' in this list`, {
    param: 'starting_after',
  });
}

/** Orders newest first, starts after the cursor and fetches one extra row to learn `has_more`. */
export function keysetPage<DB, TB extends keyof DB, O>(
  engine: Engine,
  qb: SelectQueryBuilder<DB, TB, O>,
  cursor: Cursor | null,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  let q = qb;
  if (cursor) {
    q = q.where(keysetBefore(engine, 'created_at', 'id', cursor.created_at, cursor.id) as never);
  }
  return q
    .orderBy('created_at' as never, 'desc')
    .orderBy('id' as never, 'desc')
    .limit(limit + 1);
}

/** The page of `limit` rows out of `limit + 1` fetched. */
export function toPage<R, T>(rows: R[], limit: number, view: (row: R) => T): Page<T> {
  return { object: 'list', data: rows.slice(0, limit).map(view), has_more: rows.length > limit };
}

/**
 * One page of a list: the cursor row looked up by `find` (400 when it names no record of this list), then
 * the page read by `page`.
 */
export async function readPage<R extends Cursor, T>(
  opts: { limit: number; startingAfter?: string },
  find: (id: string) => Promise<Cursor | undefined>,
  page: (cursor: Cursor | null, limit: number) => Promise<R[]>,
  view: (row: R) => T,
): Promise<Page<T>> {
  let cursor: Cursor | null = null;
  if (opts.startingAfter !== undefined) {
    cursor = (await find(opts.startingAfter)) ?? null;
    if (!cursor) throw unknownCursor(opts.startingAfter);
  }
  return toPage(await page(cursor, opts.limit), opts.limit, view);
}

/** A time window: inclusive start, exclusive end, in milliseconds. */
export interface Window {
  startMs: number;
  endMs: number;
}

/** A keyset position on (time, id). */
export interface KeyCursor {
  at: number;
  id: string;
}
