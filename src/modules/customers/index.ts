export { customerRoutes } from './customers.routes.js';
export { CustomerRecord, customerView, type Customer } from './customer.view.js';
export { CustomerService, type CustomerInput } from './customers.service.js';
