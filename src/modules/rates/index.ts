export { loadRateTable, RateTableError, type RateProvider, type RateSnapshot } from './rate-provider.js';
