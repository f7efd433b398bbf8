// The messages between the request thread and SQLite's writing thread (sqlite-worker.ts, sqlite-writer-thread.ts).

/** What the thread needs to open its connection (its workerData). */
export interface SqliteThreadData {
  path: string;
  /** Resolved path of the better-sqlite3 module the thread loads. */
  module: string;
  /** PRAGMA statements run on the connection first, in order. */
  pragmas: string[];
  /**
   * Past this size of the write-ahead log (bytes), the writer restarts it between two transactions (a file
   * database only): a checkpointer on another connection cannot win against a writer that never pauses.
   */
  walRestartBytes?: number;
}

export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** One statement; or several in order (a script), as a transaction of their own when `atomic`. */
export type Message = Statement | { script: Statement[]; atomic: boolean };

export type Request = Message & { id: number };

export interface Result {
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
}

export interface Failure {
  message: string;
  code?: string;
  /** The index of the statement of a script that failed. */
  at?: number;
}

export interface Reply extends Result {
  id: number;
  /** Whether a transaction is open on the writing connection after the message. */
  inTx?: boolean;
  /** The results of a script's statements, up to the one that failed. */
  results?: Result[];
  error?: Failure;
  closed?: boolean;
  ready?: boolean;
}
