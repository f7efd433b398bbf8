export { consoleRoutes, SESSION_COOKIE } from './console.routes.js';
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
