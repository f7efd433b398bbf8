export { protectCell, reportWindow } from './reports.service.js';
export { PAYMENTS_REPORT, ReportService, SETTLEMENTS_REPORT, type ReportDeps } from './reports.service.js';
