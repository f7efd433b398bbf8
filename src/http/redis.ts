// The Redis connection of a deployment that sets COWRIE_REDIS_URL (the rate limits' buckets live there).
// Reached at start or the start fails naming the address; afterwards a lost connection is retried in the
// background while each process limits on its own (the limiters' insurance), and commands fail at once
// instead of queueing behind it.
import type { Logger } from 'pino';
import { createClient, type RedisClientType } from 'redis';
import { ConfigError } from '../config-error.js';

const CONNECT_TIMEOUT_MS = 5_000;

/** The address without its password, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'COWRIE_REDIS_URL';
  }
}

export async function connectRedis(url: string, logger: Logger): Promise<RedisClientType> {
  let started = false;
  const client: RedisClientType = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // At start a refused connection is the answer (the start fails); once running, retry with backoff.
      reconnectStrategy: (retries, cause) => (started ? Math.min(100 * 2 ** retries, 5_000) : cause),
    },
  });
  let reported = false;
  client.on('error', (err: unknown) => {
    // Once per outage (a reconnecting client reports every failed try); at start the failed start says it.
    if (!started) return;
    if (!reported) logger.warn({ err }, 'Redis is unreachable; rate limits are kept per process until it answers');
    reported = true;
  });
  client.on('ready', () => {
    if (reported) logger.info('Redis answers again');
    reported = false;
  });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new ConfigError(`COWRIE_REDIS_URL: could not reach Redis at ${shown(url)}`)), CONNECT_TIMEOUT_MS).unref(),
  );
  try {
    await Promise.race([client.connect(), timeout]);
    started = true;
  } catch (err) {
    if (client.isOpen) client.destroy();
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`COWRIE_REDIS_URL: could not reach Redis at ${shown(url)} (${(err as Error).message})`);
  }
  return client;
}
