export {
  ACCOUNTS,
  UnbalancedMovement,
  accountBalances,
  postMovement,
  transfer,
  type Account,
  type Movement,
  type MovementKind,
} from './ledger.service.js';
