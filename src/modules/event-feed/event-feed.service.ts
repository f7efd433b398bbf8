// The event feed: newest first, or with `after` the events after that one, oldest first, never skipping one
// whose transaction commits late.
import { AppError } from '../../shared/errors.js';
import { RawJson } from '../../shared/raw-json.js';
import * as repo from './event-feed.repo.js';
import type { Db } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Page } from '../../db/pagination.js';

export async function readFeed(
  db: Db,
  scope: MerchantScope,
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
