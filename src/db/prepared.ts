// Statements of the request path, compiled once per shape. Kysely builds an operation tree and compiles it
// to SQL on every call; for a statement run on every request (or every batch) that is most of its cost
// (bench/README.md says what compiling once saves create intent).
//
// A statement is described once, by the function that builds it from its arguments. The first time a
// shape of arguments is seen (the lengths of the arrays among them, the keys of their objects), the
// statement is compiled twice: once with every argument value replaced by a marker of its own, which tells
// which argument each bound parameter comes from, and once with the real values, which must come out the
// same. Later calls of that shape reuse the SQL text and bind their own values in those places. A shape
// whose two compiles disagree (a builder that looks at a value, not only at the shape) is never cached.
import { CompiledQuery, type Compilable } from 'kysely';
import { engineOf } from './dialect.js';
import type { Q } from './transaction.js';

/** Where a bound parameter comes from: an argument's path (argument index, then array index or key). */
type Source = { path: ReadonlyArray<string | number> } | { constant: unknown };

interface Plan {
  sql: string;
  sources: Source[];
}

const MARK = '\u0000arg:';

/** The arguments with every leaf value replaced by a marker naming its path. */
function marked(value: unknown, path: Array<string | number>): unknown {
  if (Array.isArray(value)) return value.map((v, i) => marked(v, [...path, i]));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, marked(v, [...path, k])]));
  }
  return `${MARK}${JSON.stringify(path)}`;
}

/** The shape of the arguments: array lengths and object keys, all the way down (values left out). */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) {
    // Arrays of plain objects are rows: one shape for all of them (the first's), with the length.
    if (value.length > 0 && value[0] !== null && typeof value[0] === 'object' && !Array.isArray(value[0])) {
      return `[${value.length}:${shapeOf(value[0])}]`;
    }
    return `[${value.map(shapeOf).join(',')}]`;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return `{${Object.keys(value).join(',')}}`;
  }
  return '.';
}

function valueAt(args: readonly unknown[], path: ReadonlyArray<string | number>): unknown {
  let v: unknown = args;
  for (const step of path) v = (v as Record<string | number, unknown>)[step];
  return v;
}

function bind(plan: Plan, args: readonly unknown[]): unknown[] {
  return plan.sources.map((s) => ('constant' in s ? s.constant : valueAt(args, s.path)));
}

const plans = new Map<string, Plan>();
const uncachable = new Set<string>();
/**
 * PostgreSQL: the SQL texts of the cached plans, each with a statement name. Each connection prepares such
 * a text once on the server (parse, analysis and plan) and then only binds and runs it (database.ts); a
 * create-intent group's INSERT took PostgreSQL a quarter to a third of its CPU to parse and plan anew each time.
 */
const serverNames = new Map<string, string>();

/** The name a statement of this SQL text is prepared under on each PostgreSQL connection, if any. */
export function serverStatementName(sql: string): string | undefined {
  return serverNames.get(sql);
}

/** The shapes planned so far, and those refused because their two compiles disagreed (tests). */
export function preparedShapes(): { cached: string[]; uncachable: string[] } {
  return { cached: [...plans.keys()], uncachable: [...uncachable] };
}

/**
 * A statement built by `build` from its arguments, compiled once per shape of them. Arrays of objects
 * among the arguments must be rows of one shape (every object with the first one's keys).
 */
export function prepared<A extends unknown[], R>(
  name: string,
  build: (db: Q, ...args: A) => Compilable<R>,
): (db: Q, ...args: A) => CompiledQuery<R> {
  return (db, ...args) => {
    const key = `${engineOf(db)}:${name}:${shapeOf(args)}`;
    const plan = plans.get(key);
    if (plan) return CompiledQuery.raw(plan.sql, bind(plan, args)) as CompiledQuery<R>;
    const fresh = build(db, ...args).compile();
    if (!uncachable.has(key)) {
      const probe = build(db, ...(marked(args, []) as A)).compile();
      const sources: Source[] = probe.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(MARK)
          ? { path: JSON.parse(p.slice(MARK.length)) as Array<string | number> }
          : { constant: p },
      );
      const candidate = { sql: probe.sql, sources };
      const same =
        probe.sql === fresh.sql &&
        bind(candidate, args).every((v, i) => Object.is(v, fresh.parameters[i])) &&
        sources.length === fresh.parameters.length;
      if (same) {
        plans.set(key, candidate);
        if (engineOf(db) === 'postgres' && !serverNames.has(candidate.sql))
          serverNames.set(candidate.sql, `cowrie_${serverNames.size + 1}`);
      } else uncachable.add(key);
    }
    return fresh;
  };
}

const inserts = new Map<string, (db: Q, rows: readonly Record<string, unknown>[]) => CompiledQuery<unknown>>();

/**
 * INSERT of several rows with one statement. Every row must have the same columns, in the same order, and
 * no undefined value (null for SQL NULL).
 */
export function insertStatement(db: Q, table: string, rows: readonly Record<string, unknown>[]): CompiledQuery {
  let insert = inserts.get(table);
  if (!insert) {
    insert = prepared(`insert:${table}`, (q: Q, r: readonly Record<string, unknown>[]) => q.insertInto(table as never).values(r as never));
    inserts.set(table, insert);
  }
  return insert(db, rows);
}
