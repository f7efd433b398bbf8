// Schemas shared by every route: the response metadata, the error envelope, list envelopes, enums.
import { Type, type TSchema } from 'typebox';
import { StringEnum } from '../shared/schema.js';

export const EnvironmentName = StringEnum(['test', 'live'] as const);

/** Top-level fields of every JSON response. */
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

/** The list envelope around a record schema. */
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
