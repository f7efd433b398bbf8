export { reportRoutes } from './reports.routes.js';
export { protectCell, reportWindow } from './reports.service.js';
export { ReportService, type ReportDeps } from './reports.service.js';
