export {
  ConsoleAuth,
  createConsoleUser,
  ConsoleError,
  LOGINS_PER_MINUTE,
  ROLES,
  userView,
  type ConsoleSession,
  type ConsoleUser,
} from './console-auth.service.js';
