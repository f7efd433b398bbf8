import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/transaction.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { ListOf } from '../../http/schemas.js';
import { RawJsonOf, StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import { EVENT_TYPES, EventSchema } from '../events/index.js';
import { readFeed } from './event-feed.service.js';

export const EventRecord = RawJsonOf(EventSchema);

const FeedQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: '1 to 100, default 50' }),
    after: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'An event id from this feed: answers the events after it, oldest first' }),
    ),
    type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only events of this type' })),
  },
  { additionalProperties: false },
);

export const eventFeedRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/events',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'Read the event feed',
        description:
          'Without `after`: the newest events, newest first. With `after=<event id>`: the events after it, oldest first, in commit order; an event whose transaction commits late is never skipped. Use it to backfill after downtime.',
        tags: ['Events'],
        querystring: FeedQuery,
        response: { 200: ListOf(EventRecord, { title: 'EventList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      return withResponseMeta(request, await readFeed(db, requireAuth(request), { limit: q.limit, after: q.after, type: q.type }));
    },
  );
};
