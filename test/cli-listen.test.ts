// `cowrie listen` and `cowrie trigger` as a developer runs them: real processes (the server and the
// command), a real local receiver. Listen forwards only what happens after it starts, each event signed
// with the printed secret as a webhook delivery, in feed order, one printed line each; a failed forward
// is tried again; it rides out a server restart; Ctrl-C stops it with exit 0. The cases that need no
// signal from outside run the same command line in this process (runCli), which starts in milliseconds.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cowrie, constructEvent } from '@cowrie/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { ENGINE, createTestDatabase, type TestDatabase } from './helpers/harness.js';
import { SERVER_MAIN, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Running {
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
  /** Ctrl-C. */
  stop(): void;
}
interface Command extends Running {
  child: ChildProcessWithoutNullStreams;
}

function waiter(output: () => string) {
  return async (pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> => {
    // The output itself while the pattern is missing, so that a timeout shows it.
    const read = () => pattern.exec(output()) ?? output();
    return (await waitFor(`${pattern} in the output`, read, (m) => typeof m !== 'string', { timeoutMs })) as RegExpExecArray;
  };
}

/** `cowrie …` in this process (runCli, the same code the bin runs), stopped through its signal as Ctrl-C stops it. */
function cowrieHere(args: string[], env: Record<string, string> = {}): Running {
  let out = '';
  const ctrlC = new AbortController();
  const exited = runCli(args, { out: (s) => (out += s), err: (s) => (out += s), env, signal: ctrlC.signal });
  return { output: () => out, waitFor: waiter(() => out), exited, stop: () => ctrlC.abort() };
}

/** `cowrie …` as a child process, with no COWRIE_ variable of the test's environment. */
function cowrie(args: string[], env: Record<string, string> = {}): Command {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COWRIE_')) clean[k] = v;
  const child = spawn(process.execPath, [SERVER_MAIN, ...args], {
    cwd: ROOT,
    env: { ...clean, ...env },
    stdio: 'pipe',
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (s: string) => (out += s));
  child.stderr.on('data', (s: string) => (out += s));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited, waitFor: waiter(() => out), stop: () => child.kill('SIGINT') };
}

describe(`cowrie listen and cowrie trigger (${ENGINE})`, () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let receiver: Receiver;
  let key: string;
  let baseUrl: string;
  let sdk: Cowrie;
  let ports: Record<string, string>;
  const listeners: Running[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await spawnServer(db.url);
    await server.ready;
    key = server.demoKey()!;
    expect(key).toMatch(/^cwk_test_sk_/);
    ports = { COWRIE_LIVE_PORT: String(server.livePort), COWRIE_SANDBOX_PORT: String(server.sandboxPort) };
    baseUrl = `http://127.0.0.1:${server.sandboxPort}/v1`;
    sdk = new Cowrie(key, { baseUrl });
    // The receiver refuses the very first forward, to see it tried again.
    receiver = await startReceiver((_req, index) => ({ status: index === 0 ? 500 : 200 }));
  }, 60_000);
  afterAll(async () => {
    for (const l of listeners) l.stop();
    await Promise.all(listeners.map((l) => l.exited));
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await receiver?.close();
    await db?.drop();
  });

  it('forwards what happens after it starts, signed with its secret, in feed order, and stops on Ctrl-C', async () => {
    const before = await sdk.paymentIntents.create({ amount: '5.00', currency: 'USD', merchant_reference: 'before-listen' });
    const listen = cowrie(['listen', '--api-key', key, '--base-url', baseUrl, '--forward-to', `${receiver.url}/hooks`]);
    listeners.push(listen);
    const secret = (await listen.waitFor(/listen secret is (cwk_whsec_[0-9A-Za-z]{32})/))[1]!;

    const intent = await sdk.paymentIntents.create({ amount: '12.50', currency: 'USD', merchant_reference: 'during-listen' });
    await sdk.sandbox.simulate(intent.id, { outcome: 'success', payment_method: 'card' });
    const trig = cowrieHere(['trigger', 'payment_intent.refunded', '--api-key', key, '--base-url', baseUrl]);
    expect(await trig.exited).toBe(0);
    expect(trig.output()).toMatch(/^Triggered payment_intent\.refunded: event evt_\w+/);
    const triggered = /event (evt_\w+)/.exec(trig.output())![1]!;

    // created, confirming, paid and the triggered sample; the refused first forward arrives twice.
    const received = await receiver.waitFor((r) => r.some((x) => x.body.includes(triggered)), 20_000, 'the triggered event');
    const accepted = received.filter((_r, i) => i > 0);
    const events = accepted.map((r) => constructEvent(r.body, r.headers, secret));
    expect(received[0]!.body).toBe(received[1]!.body);
    const feed = (await sdk.events.list({ limit: 10 })).data.reverse();
    const fromStart = feed.slice(feed.findIndex((e) => (e.data as { id?: string }).id === intent.id));
    expect(events.map((e) => e.id)).toEqual(fromStart.map((e) => e.id));
    expect(events.map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.confirming',
      'payment_intent.paid',
      'payment_intent.refunded',
    ]);
    expect(events.at(-1)!.id).toBe(triggered);
    expect(received.some((r) => r.body.includes(before.id))).toBe(false);
    // Signed as a delivery: both signature forms, the event id as Service-Event-Id.
    expect(accepted[0]!.headers['service-event-id']).toBe(events[0]!.id);
    expect(accepted[0]!.headers['webhook-signature']).toMatch(/^v1,/);

    // One line per event: type, id, the answer and its time; the first took two tries.
    await listen.waitFor(new RegExp(`payment_intent\\.refunded\\s+${triggered}\\s+\\[200\\] \\d+ ms`));
    expect(listen.output()).toMatch(new RegExp(`payment_intent\\.created\\s+${events[0]!.id}\\s+\\[200\\] \\d+ ms \\(2 attempts\\)`));
    expect(listen.output()).toMatch(new RegExp(`payment_intent\\.paid\\s+${events[2]!.id}\\s+\\[200\\] \\d+ ms\\n`));

    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
    expect(listen.output()).toMatch(/Stopped\.\n$/);
  });

  it('rides out a server restart and forwards what happened meanwhile; --events filters; --json prints JSON lines', async () => {
    const filtered = await startReceiver();
    try {
      const listen = cowrie([
        'listen',
        '--api-key',
        key,
        '--base-url',
        baseUrl,
        '--forward-to',
        `${filtered.url}/only-paid`,
        '--events',
        'payment_intent.paid',
        '--json',
      ]);
      listeners.push(listen);
      const ready = JSON.parse((await listen.waitFor(/^\{"object":"listen","status":"ready".*\}$/m))[0]) as {
        secret: string;
        events: string[];
      };
      expect(ready.events).toEqual(['payment_intent.paid']);

      server.child.kill('SIGTERM');
      await server.exited;
      await listen.waitFor(/"status":"lost"/);
      server = await spawnServer(db.url, ports);
      await server.ready;
      await listen.waitFor(/"status":"reconnected"/, 30_000);

      const a = await sdk.paymentIntents.create({ amount: '3.00', currency: 'USD' });
      const b = await sdk.paymentIntents.create({ amount: '4.00', currency: 'USD' });
      await sdk.sandbox.simulate(a.id, { outcome: 'success', payment_method: 'card' });
      await sdk.sandbox.simulate(b.id, { outcome: 'failed', payment_method: 'card' });
      const c = await sdk.paymentIntents.create({ amount: '6.00', currency: 'USD' });
      await sdk.sandbox.simulate(c.id, { outcome: 'success', payment_method: 'card' });
      const got = await filtered.waitFor((r) => r.length >= 2, 20_000, 'two paid events');
      // Listen follows the feed in order, one page at a time: once it asks the server for what follows the
      // last paid event, it has forwarded or passed over every event up to it, and none came after.
      const lastPaid = (JSON.parse(got[1]!.body) as { id: string }).id;
      await waitFor(
        'listen to read the feed past the last paid event',
        () =>
          server
            .stdout()
            .split('\n')
            .filter((l) => l.includes('"request completed"') && l.includes(`/v1/events?after=${lastPaid}`)).length,
        (n) => n >= 1,
      );
      expect(filtered.received).toHaveLength(2);
      const paid = got.map((r) => constructEvent(r.body, r.headers, ready.secret));
      expect(paid.map((e) => e.type)).toEqual(['payment_intent.paid', 'payment_intent.paid']);
      expect(paid.map((e) => (e.data as { id: string }).id)).toEqual([a.id, c.id]);

      const lines = listen
        .output()
        .split('\n')
        .filter((l) => l.includes('"object":"forward"'))
        .map((l) => JSON.parse(l) as { type: string; status: number; attempts: number; duration_ms: number });
      expect(lines).toHaveLength(2);
      expect(lines.every((l) => l.type === 'payment_intent.paid' && l.status === 200 && l.attempts === 1)).toBe(true);
      listen.child.kill('SIGTERM');
      expect(await listen.exited).toBe(0);
    } finally {
      await filtered.close();
    }
  }, 90_000);

  it('a merchant with no event yet: everything from the first event on is forwarded, in order', async () => {
    const made = cowrieHere(['merchants', 'create', '--name', 'Fresh shop', '--json'], { COWRIE_DATABASE_URL: db.url });
    expect(await made.exited).toBe(0);
    const freshKey = (JSON.parse(made.output()) as { keys: { test_secret: string } }).keys.test_secret;
    const fresh = new Cowrie(freshKey, { baseUrl });
    expect((await fresh.events.list({ limit: 1 })).data).toHaveLength(0);
    const inbox = await startReceiver();
    try {
      const listen = cowrieHere(['listen', '--base-url', baseUrl, '--forward-to', inbox.url], { COWRIE_API_KEY: freshKey });
      listeners.push(listen);
      const secret = (await listen.waitFor(/listen secret is (cwk_whsec_\w+)/))[1]!;
      const intent = await fresh.paymentIntents.create({ amount: '7.00', currency: 'USD' });
      await fresh.sandbox.simulate(intent.id, { outcome: 'cancelled', payment_method: 'card' });
      const got = await inbox.waitFor((r) => r.length >= 2, 20_000, 'created and cancelled');
      const types = got.map((r) => constructEvent(r.body, r.headers, secret).type);
      expect(types).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
      listen.stop();
      expect(await listen.exited).toBe(0);
    } finally {
      await inbox.close();
    }
  }, 60_000);

  it('refuses what cannot work, with a clear message and exit 1', async () => {
    const noKey = cowrieHere(['listen', '--forward-to', 'http://127.0.0.1:1/x', '--base-url', baseUrl]);
    expect(await noKey.exited).toBe(1);
    expect(noKey.output()).toMatch(/--api-key or COWRIE_API_KEY/);

    const badType = cowrieHere([
      'listen',
      '--api-key',
      key,
      '--base-url',
      baseUrl,
      '--forward-to',
      'http://127.0.0.1:1/x',
      '--events',
      'payment_intent.nope',
    ]);
    expect(await badType.exited).toBe(1);
    expect(badType.output()).toMatch(/Unknown event type payment_intent\.nope/);

    const revoked = cowrieHere(['listen', '--base-url', baseUrl, '--forward-to', 'http://127.0.0.1:1/x'], {
      COWRIE_API_KEY: `cwk_test_sk_${'0'.repeat(32)}`,
    });
    expect(await revoked.exited).toBe(1);
    expect(revoked.output()).toMatch(/invalid|key/i);

    const trigJson = cowrieHere(['trigger', 'refund.created', '--json', '--base-url', baseUrl], { COWRIE_API_KEY: key });
    expect(await trigJson.exited).toBe(0);
    expect(JSON.parse(trigJson.output())).toMatchObject({ object: 'event_trigger', type: 'refund.created', status: 'sent' });

    const unknownType = cowrieHere(['trigger', 'payment_intent.nope', '--api-key', key, '--base-url', baseUrl, '--json']);
    expect(await unknownType.exited).toBe(1);
    expect(JSON.parse(unknownType.output())).toMatchObject({ error: { code: 'parameter_invalid' } });
  }, 60_000);
});
