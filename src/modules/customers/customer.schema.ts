// The customer as the API shows it.
import { Type, type Static } from 'typebox';
import type { CustomerRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { RawJson } from '../../shared/raw-json.js';
import { DateTime, Metadata, MetadataRecord, Nullable } from '../../shared/schema.js';

const Email = () => Type.String({ format: 'email', maxLength: 254, 'x-message': 'must be a valid email address' });
const Phone = () =>
  Type.String({
    maxLength: 40,
    pattern: '^\\+?[0-9][0-9 ().-]{2,39}$',
    'x-message': 'must be a phone number of digits, optionally starting with + (for example +254712345678)',
  });

/** The body of `POST /customers`. */
export const CreateCustomerBody = Type.Object(
  {
    email: Type.Optional(Email()),
    phone: Type.Optional(Phone()),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    reference: Type.Optional(Type.String({ maxLength: 256 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CustomerInput = Static<typeof CreateCustomerBody>;

/** The body of `POST /customers/{id}`: what is sent changes, what is left out stays; null clears a field. */
export const UpdateCustomerBody = Type.Object(
  {
    email: Type.Optional(Nullable(Email())),
    phone: Type.Optional(Nullable(Phone())),
    name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    reference: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CustomerUpdate = Static<typeof UpdateCustomerBody>;

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
