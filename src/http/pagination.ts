// The query string of every list that takes cursors; the paging itself is src/db/pagination.ts.
import { Type, type TProperties } from 'typebox';

export function listQuerySchema<T extends TProperties = Record<never, never>>(defaultLimit: number, maxLimit = 100, extra: T = {} as T) {
  return Type.Object(
    {
      limit: Type.Integer({
        minimum: 1,
        maximum: maxLimit,
        default: defaultLimit,
        description: `1 to ${maxLimit}, default ${defaultLimit}`,
      }),
      starting_after: Type.Optional(
        Type.String({ minLength: 1, maxLength: 255, description: 'Id of the last record of the previous page' }),
      ),
      ...extra,
    },
    { additionalProperties: false },
  );
}
