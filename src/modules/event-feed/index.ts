export { readFeed } from './event-feed.service.js';
