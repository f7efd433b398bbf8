// Two Ajv instances: bodies are validated strictly (a JSON number is never coerced into a decimal
// string, unknown fields are errors); query strings and path parameters are coerced from text.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import fastJson from 'fast-json-stringify';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError } from '../shared/errors.js';
import { metadataProblem } from '../shared/metadata.js';
import { AMOUNT_TOO_LONG, isAmountTooLong } from '../shared/money.js';
import { serializeWith } from '../shared/raw-json.js';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

// `metadata` (src/shared/metadata.ts): the limits a JSON schema cannot say, reported at the path that breaks them.
bodyAjv.addKeyword({
  keyword: 'x-metadata',
  schemaType: 'boolean',
  errors: true,
  validate: function checkMetadata(_schema: boolean, data: unknown, _parent: unknown, cxt?: { instancePath: string }) {
    const self = checkMetadata as { errors?: Partial<ErrorObject>[] };
    self.errors = [];
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return true;
    const problem = metadataProblem(data);
    if (!problem) return true;
    const pointer = problem.path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
    self.errors = [{ keyword: 'x-metadata', instancePath: `${cxt?.instancePath ?? ''}${pointer}`, message: problem.message, params: {} }];
    return false;
  },
});

// Validators and serializers are compiled the first time a route uses them, not at start-up: most routes
// of a process are never called, and every compiled schema is generated code held in memory (the error
// responses alone are several per route).
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  let compiled: ValidateFunction | null = null;
  const validate = (data: unknown) => {
    compiled ??= ajv.compile(schema as object);
    const ok = compiled(data);
    validate.errors = compiled.errors;
    return ok;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate as unknown as ReturnType<FastifySchemaCompiler<unknown>>;
};

/** The schema with every `x-raw-json` value left to JSON.stringify, which writes a RawJson as its text. */
function rawJsonAsAny(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rawJsonAsAny);
  if (schema === null || typeof schema !== 'object') return schema;
  if ((schema as Record<string, unknown>)['x-raw-json'] === true) return {};
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, rawJsonAsAny(v)]));
}

export const serializerCompiler = ({ schema }: { schema: unknown }) => {
  let compiled: ((data: unknown) => string) | null = null;
  return (data: unknown) => {
    compiled ??= fastJson(rawJsonAsAny(schema) as Parameters<typeof fastJson>[0]);
    return serializeWith(() => compiled!(data));
  };
};

/** `/customer/email` -> `customer.email`; `/items/0` -> `items[0]`. */
function paramName(path: string, extra?: string): string {
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** Turns the first Ajv error of a request part into the API's error (docs/api-reference.md, "Errors"). */
export function validationToAppError(errors: ErrorObject[], part: string | undefined): AppError {
  const e = errors[0];
  if (!e) return new AppError('parameter_invalid', 'The request is invalid');
  const schema = (e.parentSchema ?? {}) as Record<string, unknown>;
  if (e.keyword === 'required') {
    const param = paramName(e.instancePath, String(e.params['missingProperty']));
    return new AppError('parameter_missing', `Missing required parameter: ${param}`, { param });
  }
  if (e.keyword === 'additionalProperties') {
    const param = paramName(e.instancePath, String(e.params['additionalProperty']));
    const where = part === 'querystring' ? 'query parameter' : 'parameter';
    return new AppError('parameter_unknown', `Received unknown ${where}: ${param}`, { param });
  }
  // A bad key is reported by Ajv first as the failing keyword of the propertyNames subschema (carrying
  // `propertyName`), then as `propertyNames`: either way, name the key.
  if (e.keyword === 'propertyNames' || e.propertyName !== undefined) {
    const name = e.keyword === 'propertyNames' ? String(e.params['propertyName']) : String(e.propertyName);
    if (name === '') {
      const param = paramName(e.instancePath);
      return new AppError('parameter_invalid', `Invalid ${param}: keys are 1 to 40 characters, an empty key is not allowed`, { param });
    }
    const param = paramName(e.instancePath, name);
    return new AppError('parameter_invalid', `Invalid key ${param}: keys are 1 to 40 characters`, { param });
  }
  const param = paramName(e.instancePath) || (part === 'body' ? 'body' : (part ?? 'request'));
  if (param === 'body' && e.keyword === 'type') {
    return new AppError('invalid_json', 'The request body must be a JSON object');
  }
  let detail: string;
  const custom = schema['x-message'];
  if (schema['x-decimal'] === true) {
    // An amount: say what is wrong with the value sent, not only what is expected.
    if (typeof e.data === 'number') detail = 'must be a decimal string such as "1500.00", not a JSON number';
    else if (typeof e.data === 'string' && /^\s*-/.test(e.data)) detail = 'must be greater than zero';
    else if (typeof e.data === 'string' && isAmountTooLong(e.data)) detail = AMOUNT_TOO_LONG;
    else detail = String(custom);
  } else if (typeof custom === 'string') {
    detail = custom;
  } else {
    switch (e.keyword) {
      case 'type': {
        const want = String(e.params['type'])
          .split(',')
          .map((t) => TYPE_WORDS[t] ?? t)
          .join(' or ');
        detail = `must be ${want}`;
        break;
      }
      case 'format':
        detail = `must be a valid ${String(e.params['format'])}`;
        break;
      case 'enum':
        detail = `must be one of: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
        break;
      case 'const':
        detail = `must be ${JSON.stringify(e.params['allowedValue'])}`;
        break;
      case 'maxLength':
        detail = `must be at most ${String(e.params['limit'])} characters`;
        break;
      case 'minLength':
        detail = `must be at least ${String(e.params['limit'])} characters`;
        break;
      case 'maximum':
        detail = `must be at most ${String(e.params['limit'])}`;
        break;
      case 'minimum':
        detail = `must be at least ${String(e.params['limit'])}`;
        break;
      case 'maxItems':
        detail = `must have at most ${String(e.params['limit'])} items`;
        break;
      case 'maxProperties':
        detail = `must have at most ${String(e.params['limit'])} keys`;
        break;
      default:
        detail = e.message ?? 'is invalid';
    }
  }
  return new AppError('parameter_invalid', `Invalid ${param}: ${detail}`, { param });
}
