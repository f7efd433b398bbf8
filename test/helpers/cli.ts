// What the command-line tests share: the JSON each command prints, and a runner of the `cowrie` command
// in-process against a test database.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { type Clock } from '../../src/shared/clock.js';
import { type TestDatabase } from './harness.js';
import { TEST_SERVER_ENV } from './test-env.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export interface CreatedJson {
  merchant: { id: string; name: string; kyb_status: string };
  keys: { test_secret: string; test_publishable: string; live_secret?: string };
}

export interface MerchantJson {
  merchant: {
    id: string;
    object: string;
    name: string;
    kyb_status: string;
    status: string;
    limits: { per_payment: string | null; daily: string | null; monthly: string | null };
    created_at: string;
  };
}

export interface KeyJson {
  id: string;
  key: string;
  object: string;
  merchant_id: string;
  app_id: string;
  environment: string;
  type: string;
  scopes: string[];
  allowed_ips: string[];
  created_at: string;
  expires_at: string | null;
}

export interface RotateJson {
  old_key: { id: string; expires_at: string };
  new_key: KeyJson;
}

export interface ErrorJson {
  error: { code: string; message: string };
}

export const HOUR = 3_600_000;
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
export const at = (ms: number): Clock => ({ nowMs: () => ms, now: () => new Date(ms) });

/**
 * The command line run in-process with `env` (read when it runs): what it printed on stdout and stderr as
 * one text, and that text's JSON when it is one JSON document (commands run with `--json`).
 */
export async function runCliIn(env: Record<string, string>, argv: string[]): Promise<{ code: number; json: any; out: string }> {
  let out = '';
  const code = await runCli(argv, {
    out: (x) => void (out += x),
    err: (x) => void (out += x),
    env,
  });
  let json: any;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { code, json, out };
}

/** The command line run in-process against one database; every key it prints is added to `printedKeys`. */
export function cliRunner(database: () => TestDatabase, printedKeys: string[]) {
  async function cli(...argv: string[]): Promise<CliResult> {
    let out = '';
    let err = '';
    const code = await runCli(argv, {
      out: (s) => {
        out += s;
      },
      err: (s) => {
        err += s;
      },
      env: { ...TEST_SERVER_ENV, COWRIE_DATABASE_URL: database().url },
    });
    for (const m of out.matchAll(/cwk_(?:test|live)_(?:sk|rk|pk)_[0-9A-Za-z]+/g)) printedKeys.push(m[0]);
    return { code, out, err };
  }

  /** Runs a command that must succeed and print one JSON document on stdout. */
  async function ok<T>(...argv: string[]): Promise<T> {
    const r = await cli(...argv);
    expect(r, `${argv.join(' ')}\n${r.err}${r.out}`).toMatchObject({ code: 0, err: '' });
    return JSON.parse(r.out) as T;
  }

  /** Runs a command that must fail with exit code 1 and a JSON error on stdout. */
  async function fails(...argv: string[]): Promise<ErrorJson['error']> {
    const r = await cli(...argv);
    expect(r.code, `${argv.join(' ')}\n${r.out}${r.err}`).toBe(1);
    const body = JSON.parse(r.out) as ErrorJson;
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toMatch(/^[a-z_]+$/);
    expect(typeof body.error.message).toBe('string');
    expect(body.error.message.length).toBeGreaterThan(0);
    return body.error;
  }
  return { cli, ok, fails };
}
