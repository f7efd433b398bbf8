export { loadRateTable, RateTableError, type RateProvider, type RateSnapshot } from './rate-provider.js';
export { rateRoutes } from './rates.routes.js';
