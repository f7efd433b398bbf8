// COWRIE_REDIS_URL: checked with the other variables at start, and a Redis that cannot be reached stops the
// start with a message naming the address (its password hidden) instead of running without the shared limit.
import { createServer } from 'node:net';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { connectRedis } from '../src/http/redis.js';

describe('COWRIE_REDIS_URL', () => {
  it('unset: no Redis; a redis:// or rediss:// address is taken as it is', () => {
    expect(loadConfig({}).redisUrl).toBeNull();
    expect(loadConfig({ COWRIE_REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl).toBe('redis://127.0.0.1:6379');
    expect(loadConfig({ COWRIE_REDIS_URL: 'rediss://cache.example:6380/2' }).redisUrl).toBe('rediss://cache.example:6380/2');
  });

  it('another scheme is refused naming the variable', () => {
    expect(() => loadConfig({ COWRIE_REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(ConfigError);
    expect(() => loadConfig({ COWRIE_REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/COWRIE_REDIS_URL/);
  });

  it('a Redis that refuses the connection stops the start, naming the address without its password', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const attempt = connectRedis(`redis://:hunter2@127.0.0.1:${port}`, pino({ level: 'silent' }));
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(`could not reach Redis at redis://:***@127.0.0.1:${port}`);
    await expect(attempt).rejects.not.toThrow(/hunter2/);
  });
});
