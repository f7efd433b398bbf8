export { eventFeedRoutes, EventRecord } from './event-feed.routes.js';
export { readFeed } from './event-feed.service.js';
