// TypeBox helpers for the shapes the API shows. A module describes each record it answers once, as a
// schema, and derives its TypeScript type from it (`Static<typeof XRecord>`); routes answer with it and
// the OpenAPI document is generated from it.
import { Type, type TSchema } from 'typebox';
import { METADATA_DESCRIPTION, METADATA_LIMITS } from './metadata.js';
import { AMOUNT_PATTERN } from './money.js';
import type { RawJson } from './raw-json.js';

/** A string enum as JSON Schema `enum` (clear validation messages, clean OpenAPI). */
export function StringEnum<const T extends readonly string[]>(values: T, opts: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
}

/** `T` or null. */
export function Nullable<T extends TSchema>(schema: T, opts: Record<string, unknown> = {}) {
  return Type.Union([schema, Type.Null()], opts);
}

/** A date-time string (ISO 8601, UTC). */
export const DateTime = (opts: Record<string, unknown> = {}) => Type.String({ format: 'date-time', ...opts });

/**
 * A value a response carries as its JSON text (RawJson), written as is: the schema documents its shape,
 * and the response serializer writes the text (src/http/validation.ts).
 */
export function RawJsonOf(schema: TSchema) {
  return Type.Unsafe<RawJson>({ ...schema, 'x-raw-json': true });
}

/** `metadata` in a response: the text stored, exactly as the merchant sent it. */
export const MetadataRecord = RawJsonOf(Type.Object({}, { additionalProperties: true, description: METADATA_DESCRIPTION }));

/** `metadata` in a request body (src/shared/metadata.ts has the rules; the validator, src/http/validation.ts, checks them). */
export const Metadata = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  maxProperties: METADATA_LIMITS.keys,
  propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength },
  additionalProperties: true,
  'x-metadata': true,
  description: METADATA_DESCRIPTION,
});

/** An amount: a decimal string (at most MAX_INTEGER_DIGITS digits before the point), never a JSON number. */
export function DecimalString(description?: string) {
  return Type.String({
    maxLength: 64,
    pattern: AMOUNT_PATTERN,
    'x-message': 'must be a decimal string such as "1500.00"',
    'x-decimal': true,
    ...(description ? { description } : {}),
  });
}
