// Customers (spec 2.8, 4.8; DECISIONS "Customers"): the merchant's stored customer records.
import { readPage, type Page } from '../../db/pagination.js';
import type { CustomerRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { jsonTextOf } from '../../shared/raw-json.js';
import type { MerchantScope } from '../../shared/scope.js';
import { customerView, type Customer, type CustomerInput } from './customer.schema.js';
import * as repo from './customers.repo.js';

export class CustomerService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async create(scope: MerchantScope, input: CustomerInput): Promise<Customer> {
    const { db, clock } = this.deps;
    const row: CustomerRow = {
      id: newId('customer'),
      merchant_id: scope.merchantId,
      environment: scope.environment,
      email: input.email ?? null,
      phone: input.phone ?? null,
      name: input.name ?? null,
      reference: input.reference ?? null,
      metadata: jsonTextOf(input.metadata ?? {}),
      created_at: clock.nowMs(),
    };
    await repo.insertCustomer(db, row);
    return customerView(row);
  }

  async get(scope: MerchantScope, id: string): Promise<Customer> {
    const row = await repo.findCustomer(this.deps.db, scope, id);
    if (!row) throw notFound('customer', id);
    return customerView(row);
  }

  async list(scope: MerchantScope, opts: { limit: number; startingAfter?: string }): Promise<Page<Customer>> {
    const db = this.deps.db;
    return readPage(
      opts,
      (id) => repo.findCustomer(db, scope, id),
      (cursor, limit) => repo.listCustomers(db, scope, cursor, limit),
      customerView,
    );
  }
}
