// The customer as the API shows it (spec 2.8; DECISIONS "Customers").
import { Type, type Static } from 'typebox';
import type { CustomerRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { RawJson } from '../../shared/raw-json.js';
import { DateTime, MetadataRecord, Nullable } from '../../shared/schema.js';

export const customerProperties = {
  id: Type.String({ description: 'Identifier, prefix `cus_`' }),
  object: Type.Literal('customer'),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  name: Nullable(Type.String()),
  reference: Nullable(Type.String(), { description: "The merchant's own customer id" }),
  metadata: MetadataRecord,
  created_at: DateTime(),
  livemode: Type.Boolean(),
};

export const CustomerRecord = Type.Object(customerProperties, { title: 'Customer' });
export type Customer = Static<typeof CustomerRecord>;

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

