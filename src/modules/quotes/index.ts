export { quoteRoutes } from './quotes.routes.js';
export { QuoteRecord, QuoteService, QUOTE_LOCK_MS, type Quote, type QuoteInput } from './quotes.service.js';
