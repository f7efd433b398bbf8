export { authRoutes } from './auth.routes.js';
