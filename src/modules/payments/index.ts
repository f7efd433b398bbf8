export { PaymentService, type Applied, type PaymentReport, type PaymentServiceDeps } from './payments.service.js';
