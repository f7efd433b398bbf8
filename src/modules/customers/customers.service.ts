// Customers: the merchant's stored customer records.
import { readPage, type Page } from '../../db/pagination.js';
import type { CustomerRow } from '../../db/schema.js';
import { transaction, type CommitWith, type Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { jsonTextOf } from '../../shared/raw-json.js';
import type { MerchantScope } from '../../shared/scope.js';
import { customerView, type Customer, type CustomerInput, type CustomerUpdate } from './customer.schema.js';
import * as repo from './customers.repo.js';

export class CustomerService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async create(scope: MerchantScope, input: CustomerInput, commitWith?: CommitWith<Customer>): Promise<Customer> {
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
    const view = customerView(row);
    await transaction(db, async (tx) => {
      await repo.insertCustomer(tx, row);
      await commitWith?.inTransaction(tx, view);
    });
    return view;
  }

  /** A customer's row, or undefined (other modules refer to stored customers by id). */
  find(scope: MerchantScope, id: string): Promise<CustomerRow | undefined> {
    return repo.findCustomer(this.deps.db, scope, id);
  }

  async get(scope: MerchantScope, id: string): Promise<Customer> {
    const row = await repo.findCustomer(this.deps.db, scope, id);
    if (!row) throw notFound('customer', id);
    return customerView(row);
  }

  /** Changes the fields sent (null clears one; metadata is replaced whole) and answers the customer. */
  async update(scope: MerchantScope, id: string, input: CustomerUpdate, commitWith?: CommitWith<Customer>): Promise<Customer> {
    const db = this.deps.db;
    const row = await repo.findCustomer(db, scope, id);
    if (!row) throw notFound('customer', id);
    const patch: Partial<CustomerRow> = {};
    if (input.email !== undefined) patch.email = input.email;
    if (input.phone !== undefined) patch.phone = input.phone;
    if (input.name !== undefined) patch.name = input.name;
    if (input.reference !== undefined) patch.reference = input.reference;
    if (input.metadata !== undefined) patch.metadata = jsonTextOf(input.metadata);
    const view = customerView({ ...row, ...patch });
    await transaction(db, async (tx) => {
      if (Object.keys(patch).length > 0 && !(await repo.updateCustomer(tx, scope, id, patch))) throw notFound('customer', id);
      await commitWith?.inTransaction(tx, view);
    });
    return view;
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
