// Bodies over the 1 MiB limit: every one is answered 413 request_too_large in the error envelope, never a cut
// connection, also when many arrive at once on a busy machine. The server refuses before reading the body and
// closes the connection, so it reads and throws away the rest first: closing on a client still sending would
// reset the connection before the client reads its answer.
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

const MIB = 1024 * 1024;

describe(`bodies over the limit (${ENGINE})`, () => {
  let s: TestServer;
  // A connection per request, as many clients at once as the test sends.
  const agent = new Agent({ connections: null, pipelining: 1 });

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await agent.close();
    await s?.stop();
  });

  async function send(path: string, body: Buffer | (() => AsyncIterable<Buffer>), contentType = 'application/json') {
    const res = await request(s.url('test', path), {
      dispatcher: agent,
      method: 'POST',
      headers: { authorization: `Bearer ${s.merchant.keys.test_secret}`, 'content-type': contentType },
      body: Buffer.isBuffer(body) ? body : Readable.from(body()),
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  }

  const twoMb = Buffer.from(JSON.stringify({ title: 'Big', currency: 'KES', metadata: { pad: 'p'.repeat(2 * MIB) } }));
  const links = async () =>
    Number(
      (
        await s.running.database.db
          .selectFrom('payment_links')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a 2 MB body sent 60 times at once: every answer is the 413 envelope', async () => {
    const before = await links();
    const results = await Promise.allSettled(Array.from({ length: 60 }, () => send('/v1/payment-links', twoMb)));
    const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    expect(failures, failures.slice(0, 3).join('\n')).toEqual([]);
    for (const r of results) {
      const res = (r as PromiseFulfilledResult<Awaited<ReturnType<typeof send>>>).value;
      expectError(res, 413, 'request_too_large', null, { environment: 'test' });
    }
    expect(await links()).toBe(before);
  });

  it('a 2 MB body written slowly by a raw HTTP/1.1 client, 30 at once: each gets the whole 413, then a clean close', async () => {
    // The client is still writing when the server has its answer: it must not see EPIPE or a reset.
    const results = await Promise.all(
      Array.from({ length: 30 }, () => rawPost(s.url('test', '/v1/payment-links'), s.merchant.keys.test_secret, twoMb)),
    );
    for (const r of results) {
      expect(r.socketError, r.text.slice(0, 200)).toBeNull();
      expectError(r, 413, 'request_too_large', null, { environment: 'test' });
      expect(r.headers['connection']).toBe('close');
    }
  });

  it('sent chunked (no Content-Length), 20 at once: every answer is the 413 envelope', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    async function* body() {
      yield Buffer.from('{"title":"');
      for (let i = 0; i < 40; i++) yield chunk;
      yield Buffer.from('"}');
    }
    const results = await Promise.all(Array.from({ length: 20 }, () => send('/v1/payment-links', body)));
    for (const r of results) expectError(r, 413, 'request_too_large', null);
  });

  it('a 2 MB body of a type no parser takes is answered 415, also at once', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => send('/v1/payment-links', twoMb, 'text/plain')));
    for (const r of results) expectError(r, 415, 'unsupported_media_type', null);
  });

  it('an 8 MB body is answered too, and the server serves the next request', async () => {
    const r = await send('/v1/customers', Buffer.alloc(8 * MIB, 'a'));
    expectError(r, 413, 'request_too_large', null);
    const ok = await s.sandbox('POST', '/customers', { body: { name: 'after' } });
    expect(ok.status, ok.text).toBe(201);
  });
});

/**
 * POSTs `body` over a plain socket, 64 KiB at a time with a pause between pieces, and reads the answer to
 * the end of the connection: the status, headers, text and JSON, and the socket's error if it had one.
 */
function rawPost(url: string, key: string, body: Buffer) {
  const u = new URL(url);
  return new Promise<{ status: number; headers: Record<string, string>; text: string; json: any; socketError: string | null }>(
    (resolve) => {
      // A client that sends its whole body whatever it hears meanwhile, as many do (it half-closes only when done).
      const socket = connect({ port: Number(u.port), host: u.hostname, allowHalfOpen: true });
      const received: Buffer[] = [];
      let socketError: string | null = null;
      socket.on('data', (c: Buffer) => received.push(c));
      socket.on('error', (err: NodeJS.ErrnoException) => (socketError = err.code ?? err.message));
      socket.on('close', () => {
        const all = Buffer.concat(received).toString('utf8');
        const [head = '', ...rest] = all.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const at = line.indexOf(':');
          headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
        }
        const text = rest.join('\r\n\r\n');
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, text, json, socketError });
      });
      socket.on('connect', async () => {
        socket.write(
          `POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\n\r\n`,
        );
        for (let at = 0; at < body.length && !socket.destroyed; at += 64 * 1024) {
          socket.write(body.subarray(at, at + 64 * 1024));
          await new Promise((r) => setTimeout(r, 2));
        }
        if (!socket.destroyed) socket.end();
      });
    },
  );
}
