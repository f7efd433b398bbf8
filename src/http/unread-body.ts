// A request refused before its body was read (too large, or of a type no parser takes) is answered with
// `Connection: close`. Closing a socket while the client is still sending makes the kernel answer its
// next bytes with a reset, which can reach the client before it has read the answer: it sees EPIPE or
// ECONNRESET instead of the 413. So the rest of the body is read and thrown away first, within bounds,
// and only then is the answer sent and the connection closed cleanly.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The most of an unread body that is read to be thrown away before answering. */
export const DISCARD_MAX_BYTES = 16 * 1024 * 1024;
/** The longest a client may take to send the rest before the answer goes out anyway. */
export const DISCARD_MAX_MS = 30_000;

/**
 * Reads what is left of a request's body and throws it away, until its end, `maxBytes` more, or `maxMs`:
 * true when the whole body was read.
 */
export function discardBody(raw: IncomingMessage, maxBytes = DISCARD_MAX_BYTES, maxMs = DISCARD_MAX_MS): Promise<boolean> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve(raw.complete);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      raw.off('error', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer | string) => {
      read += chunk.length;
      if (read > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.once('error', onClose);
    raw.resume();
  });
}

/** Before an answer that closes the connection: the unread rest of the request's body is read first. */
export async function readRestBeforeClosing(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const closing = String(reply.getHeader('connection') ?? '').toLowerCase() === 'close';
  if (closing && !request.raw.complete) await discardBody(request.raw);
}
