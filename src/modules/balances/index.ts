export { balanceRoutes } from './balances.routes.js';
export { listBalances, type BalanceEntry } from './balances.service.js';
