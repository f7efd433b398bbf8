export { balanceRoutes } from './balances.routes.js';
export { BalanceEntryRecord, listBalances, type BalanceEntry } from './balances.service.js';
