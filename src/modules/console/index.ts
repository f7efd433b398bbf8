export {
  ConsoleAuth,
  createConsoleUser,
  ConsoleError,
  LOGINS_PER_MINUTE,
  normalizeEmail,
  ROLES,
  userView,
  type ConsoleSession,
  type ConsoleUser,
} from './console-auth.service.js';
