// Schemas shared by every route: the response metadata, the error envelope, list envelopes, enums.
import { Type, type TSchema } from 'typebox';
import { METADATA_DESCRIPTION, METADATA_LIMITS } from '../shared/metadata.js';
import { StringEnum } from '../shared/schema.js';

export const EnvironmentName = StringEnum(['test', 'live'] as const);

/** Top-level fields of every JSON response (section 1). */
export const metaProperties = {
  request_id: Type.String({ description: 'Same as the `Service-Request-Id` header; quote it to support.' }),
  environment: EnvironmentName,
  livemode: Type.Boolean(),
};

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      type: StringEnum([
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'idempotency_error',
        'rate_limit_error',
        'api_error',
      ] as const),
      code: Type.String(),
      message: Type.String(),
      param: Type.Union([Type.String(), Type.Null()]),
      request_id: Type.String(),
      docs_url: Type.String({ format: 'uri' }),
    }),
    ...metaProperties,
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);

/** A resource schema with the response metadata added (for single-object responses). */
export function withMeta<T extends Record<string, TSchema>>(properties: T, opts: { title: string; description?: string }) {
  return Type.Object({ ...properties, ...metaProperties }, { additionalProperties: false, ...opts });
}

/** The list envelope of section 2.10 around a record schema. */
export function ListOf(item: TSchema, opts: { title: string; paged?: boolean }) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      ...(opts.paged === false ? {} : { has_more: Type.Boolean() }),
      ...metaProperties,
    },
    { title: opts.title },
  );
}

export const IdParams = Type.Object({ id: Type.String({ maxLength: 255 }) });

/** `metadata` in a request body (src/shared/metadata.ts has the rules; the validator checks them). */
export const Metadata = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  maxProperties: METADATA_LIMITS.keys,
  propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength },
  additionalProperties: true,
  'x-metadata': true,
  description: METADATA_DESCRIPTION,
});

/** An amount: a decimal string, never a JSON number. */
export function DecimalString(description?: string) {
  return Type.String({
    maxLength: 64,
    pattern: '^[0-9]+(\\.[0-9]+)?$',
    'x-message': 'must be a decimal string such as "1500.00" (never a JSON number)',
    ...(description ? { description } : {}),
  });
}
