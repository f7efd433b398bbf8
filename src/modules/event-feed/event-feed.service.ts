// The event feed (spec 4.7; DECISIONS "Webhooks and events"): newest first, or with `after` the events
// after that one, oldest first, never skipping one whose transaction commits late.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Page } from '../../http/pagination.js';
import { AppError } from '../../shared/errors.js';
import { RawJson } from '../../shared/raw-json.js';
import * as repo from './event-feed.repo.js';

export async function readFeed(
  db: Kysely<DB>,
  scope: repo.Scope,
  opts: { limit: number; after?: string; type?: string },
): Promise<Page<RawJson>> {
  let after: repo.FeedPosition | null = null;
  if (opts.after !== undefined) {
    after = (await repo.findPosition(db, scope, opts.after)) ?? null;
    if (!after) {
      throw new AppError('parameter_invalid', `Invalid after: no event '${opts.after.slice(0, 80)}' in this feed`, { param: 'after' });
    }
  }
  const rows = await repo.feedRows(db, scope, { after, limit: opts.limit, type: opts.type });
  return {
    object: 'list',
    data: rows.slice(0, opts.limit).map((r) => new RawJson(r.payload)),
    has_more: rows.length > opts.limit,
  };
}
