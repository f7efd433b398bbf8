// Which build of better-sqlite3 this Node.js loads. Node.js 24.19 made node::ObjectWrap's destructor check
// for a current Environment, and better-sqlite3 12 (whose Database and Statement are ObjectWraps) then
// aborts the process whenever the garbage collector frees a statement outside JavaScript (an idle-time
// collection, a worker thread's teardown): WiseLibs/better-sqlite3#1515. better-sqlite3 13 is built on
// node-addon-api and is free of it, but it requires Node.js 22 or later and crashes on 20. So both are
// installed: 13 (prebuilt, installed as `better-sqlite3-13`) on Node.js 22 and later, 12 (compiled at
// install) on Node.js 20. Their JavaScript API is the same.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The resolved path of the better-sqlite3 module for this Node.js (worker threads load it by path). */
export const SQLITE_MODULE = require.resolve(nodeMajor >= 22 ? 'better-sqlite3-13' : 'better-sqlite3');

/** better-sqlite3's Database class, from SQLITE_MODULE. */
export const SQLite = require(SQLITE_MODULE) as typeof BetterSqlite3;
