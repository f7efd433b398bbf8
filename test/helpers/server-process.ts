// The real server as a child process (`node dist/cli/main.js serve`: the compiled server, which
// test/global-setup.ts builds before any test runs), for tests that kill it or run several processes.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_SERVER_ENV } from './test-env.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The compiled command line (`cowrie`), run as a child process: `node SERVER_MAIN serve`, `node SERVER_MAIN listen …`. */
export const SERVER_MAIN = join(ROOT, 'dist', 'cli', 'main.js');

// Ports for servers that a test starts on a port it chose (a child process, a restart on the same
// address): each Vitest worker has its own block below the kernel's ephemeral range (32768 and up), so
// neither another file running beside it nor a port-0 listener or an outgoing connection can take a port
// between its check here and the server's bind, or while a server restarts on it. Each worker starts at a
// random place in its block, so that two test runs at once on one machine seldom reach for the same port.
const PORT_BLOCK = 400;
const PORT_BASE = 20_000 + ((Number(process.env['VITEST_POOL_ID'] ?? 1) - 1) % 30) * PORT_BLOCK;
let nextPort = Math.floor(Math.random() * PORT_BLOCK);

async function bindable(port: number): Promise<boolean> {
  const probe = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (ok) await new Promise<void>((resolve) => probe.close(() => resolve()));
  return ok;
}

/** `n` free ports of this worker's block, each handed out once per round of the block. */
export async function freePorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tried = 0; ports.length < n; tried++) {
    if (tried >= PORT_BLOCK) throw new Error(`no free port left in ${PORT_BASE}-${PORT_BASE + PORT_BLOCK - 1}`);
    const port = PORT_BASE + (nextPort++ % PORT_BLOCK);
    if (await bindable(port)) ports.push(port);
  }
  return ports;
}

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  livePort: number;
  sandboxPort: number;
  stdout(): string;
  stderr(): string;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The demo merchant's sandbox key, printed on a first start. */
  demoKey(): string | null;
}

export async function spawnServer(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  // Ports given in extraEnv are kept (a restart on the same address); others are picked free.
  const [freeLive, freeSandbox] = (await freePorts(2)) as [number, number];
  const livePort = Number(extraEnv['COWRIE_LIVE_PORT'] ?? freeLive);
  const sandboxPort = Number(extraEnv['COWRIE_SANDBOX_PORT'] ?? freeSandbox);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COWRIE_')) env[k] = v;
  Object.assign(env, {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(livePort),
    COWRIE_SANDBOX_PORT: String(sandboxPort),
    COWRIE_RATE_LIMIT_TEST: '100000',
    COWRIE_METRICS_PORT: '0',
    ...TEST_SERVER_ENV,
    ...extraEnv,
  });
  const child = spawn(process.execPath, [SERVER_MAIN, 'serve'], { cwd: ROOT, env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => (stderr += s));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not ready after 30 s\n${stdout}\n${stderr}`)), 30_000);
    const listening = new Set<string>();
    child.stdout.on('data', (s: string) => {
      stdout += s;
      // The whole output so far: a log line may arrive split across two chunks.
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const log = JSON.parse(line) as { msg?: string; environment?: string; port?: number; role?: string };
          if (log.msg === 'listening' && log.environment) listening.add(`${log.environment}:${log.port}`);
          // A worker process has no listener: it is ready when it says so.
          if (log.msg === 'ready' && log.role === 'worker') listening.add('worker');
        } catch {
          // a partial line
        }
      }
      if (listening.has('worker') || (listening.has(`live:${livePort}`) && listening.has(`test:${sandboxPort}`))) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it was ready\n${stdout}\n${stderr}`));
    });
  });
  ready.catch(() => {});
  return {
    child,
    livePort,
    sandboxPort,
    stdout: () => stdout,
    stderr: () => stderr,
    ready,
    exited,
    demoKey: () => /cwk_test_sk_[0-9A-Za-z]{32,}/.exec(stdout)?.[0] ?? null,
  };
}

export async function killHard(p: ServerProcess): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await p.exited;
}

export async function api(port: number, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}
