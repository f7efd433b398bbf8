export { CustomerRecord, customerView, type Customer, type CustomerInput } from './customer.schema.js';
export { CustomerService } from './customers.service.js';
