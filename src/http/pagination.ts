// Forward cursors for every list (section 4.9): newest first by creation time, ties broken by id, so
// paging never repeats or skips a record; `starting_after` must name a record of this merchant and
// environment.
import { type SelectQueryBuilder } from 'kysely';
import { keysetBefore, type Engine } from '../db/dialect.js';
import { Type, type TProperties } from 'typebox';
import { AppError } from '../shared/errors.js';

export function listQuerySchema<T extends TProperties = {}>(defaultLimit: number, maxLimit = 100, extra: T = {} as T) {
  return Type.Object(
    {
      limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit, description: `1 to ${maxLimit}, default ${defaultLimit}` }),
      starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Id of the last record of the previous page' })),
      ...extra,
    },
    { additionalProperties: false },
  );
}

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
  return q.orderBy('created_at' as never, 'desc').orderBy('id' as never, 'desc').limit(limit + 1);
}

export function toPage<R, T>(rows: R[], limit: number, view: (row: R) => T): Page<T> {
  return { object: 'list', data: rows.slice(0, limit).map(view), has_more: rows.length > limit };
}
