export { loadRateTable, RateTableError, type AssetFreshness, type RateProvider, type RateSnapshot } from './rate-provider.js';
export { RateBook, RATES_RELOAD_MS } from './rate-book.js';
export { combinePrices, medianOf, RateRefresher } from './rate-refresh.service.js';
export { fetchSourcePrices, readAnswer, RATE_SOURCE_TIMEOUT_MS } from './rate-source.js';
