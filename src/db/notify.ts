// Wake-ups: a writer signals a channel when its transaction commits, and every listener of the channel
// wakes (the webhook worker's "deliveries are due"). One meaning on both engines: the signal is sent at
// commit, never on rollback.
// - PostgreSQL: NOTIFY inside the transaction, which PostgreSQL delivers at commit to every process
//   LISTENing, this one included.
// - SQLite (one process): an in-process emitter, rung by a commit hook.
import { EventEmitter } from 'node:events';
import type { CompiledQuery, QueryResult } from 'kysely';
import pg from 'pg';
import { engineOf } from './dialect.js';
import type { Q } from './transaction.js';

const local = new EventEmitter();
local.setMaxListeners(0);

/** Signals `channel` to the listeners of this process (on the next turn of the event loop). */
export function ring(channel: string): void {
  setImmediate(() => local.emit(channel));
}

/** A statement that writes rows and signals `channel` at commit when it wrote any. */
export interface SignallingInsert {
  statement: CompiledQuery;
  /** The batch hook (SQLite: rings after commit). */
  onCommit: (result: QueryResult<unknown>) => void;
  /** How many rows the statement wrote, from its result. */
  written(result: QueryResult<unknown>): number;
}

/**
 * A statement made by dialect.insertNotifying: on PostgreSQL it NOTIFYs by itself, within the
 * transaction, and answers how many rows it wrote; on SQLite the commit hook rings when it wrote any.
 */
export function signallingInsert(db: Q, statement: CompiledQuery, channel: string): SignallingInsert {
  if (engineOf(db) === 'postgres') {
    return {
      statement,
      onCommit: () => {},
      written: (result) => Number((result.rows[0] as { written: number | string } | undefined)?.written ?? 0),
    };
  }
  const written = (result: QueryResult<unknown>) => Number(result.numAffectedRows ?? 0n);
  return {
    statement,
    onCommit: (result) => {
      if (written(result) > 0) ring(channel);
    },
    written,
  };
}

export interface Subscription {
  close(): Promise<void>;
}

/**
 * Calls `onSignal` whenever `channel` is signalled: in this process always; on PostgreSQL also from every
 * other process, through LISTEN on a connection of its own (outside the pool), re-established a second
 * after it breaks. `onSignal` also runs after each (re)connect, since signals sent meanwhile are lost.
 */
export async function subscribe(
  pool: pg.Pool | null,
  channel: string,
  onSignal: () => void,
  onError: (err: unknown) => void,
): Promise<Subscription> {
  local.on(channel, onSignal);
  const listener = pool ? await listen(pool, channel, onSignal, onError) : null;
  return {
    async close() {
      local.off(channel, onSignal);
      await listener?.close();
    },
  };
}

async function listen(pool: pg.Pool, channel: string, onNotify: () => void, onError: (err: unknown) => void): Promise<Subscription> {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  const drop = (c: pg.Client) => {
    c.removeAllListeners();
    c.on('error', () => {});
    void c.end().catch(() => {});
    if (client === c) client = null;
  };
  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, 1000);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client((pool as unknown as { options: pg.ClientConfig }).options);
    const broken = (err?: unknown) => {
      if (err) onError(err);
      drop(c);
      scheduleRetry();
    };
    c.on('error', broken);
    c.on('end', () => broken());
    c.on('notification', () => onNotify());
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      broken(err);
      return;
    }
    if (closed) return drop(c);
    client = c;
    onNotify();
  };
  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}
