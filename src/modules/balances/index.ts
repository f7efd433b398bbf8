export { BalanceEntryRecord, listBalances, type BalanceEntry } from './balances.service.js';
