export { QuoteBody, QuoteRecord, quoteView, type Quote, type QuoteInput } from './quote.schema.js';
export { QuoteService, QUOTE_LOCK_MS } from './quotes.service.js';
