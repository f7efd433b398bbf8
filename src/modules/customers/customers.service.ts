import type { Kysely } from 'kysely';
import type { CustomerRow, DB } from '../../db/schema.js';
import { unknownCursor, toPage, type Page } from '../../http/pagination.js';
import type { Clock } from '../../shared/clock.js';
import { isoTime } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { RawJson, jsonTextOf } from '../../shared/raw-json.js';
import * as repo from './customers.repo.js';

export interface CustomerInput {
  email?: string;
  phone?: string;
  name?: string;
  reference?: string;
  metadata?: object;
}

export interface Customer {
  id: string;
  object: 'customer';
  email: string | null;
  phone: string | null;
  name: string | null;
  reference: string | null;
  metadata: RawJson;
  created_at: string;
  livemode: boolean;
}

export function customerView(row: CustomerRow): Customer {
  return {
    id: row.id,
    object: 'customer',
    email: row.email,
    phone: row.phone,
    name: row.name,
    reference: row.reference,
    metadata: new RawJson(row.metadata),
    created_at: isoTime(row.created_at),
    livemode: row.environment === 'live',
  };
}

export async function createCustomer(db: Kysely<DB>, clock: Clock, scope: repo.Scope, input: CustomerInput): Promise<Customer> {
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

export async function getCustomer(db: Kysely<DB>, scope: repo.Scope, id: string): Promise<Customer> {
  const row = await repo.findCustomer(db, scope, id);
  if (!row) throw notFound('customer', id);
  return customerView(row);
}

export async function listCustomers(
  db: Kysely<DB>,
  scope: repo.Scope,
  opts: { limit: number; startingAfter?: string },
): Promise<Page<Customer>> {
  let cursor = null;
  if (opts.startingAfter !== undefined) {
    cursor = await repo.findCustomer(db, scope, opts.startingAfter);
    if (!cursor) throw unknownCursor(opts.startingAfter);
  }
  const rows = await repo.listCustomers(db, scope, cursor, opts.limit);
  return toPage(rows, opts.limit, customerView);
}
