export { customerRoutes } from './customers.routes.js';
