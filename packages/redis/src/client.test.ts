import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, testRedis, type TestRedis } from '@fragrance/testkit';
import { createRedisClient, redisOptions, waitForRedis } from './client.ts';
import { isRedisConnectionError, quietRedisLogger, type RedisLogger } from './outages.ts';

interface Recorded {
  level: 'warn' | 'info';
  obj: Record<string, unknown>;
  msg: string;
}

function recordingLogger(): RedisLogger & { lines: Recorded[]; of: (level: Recorded['level']) => Recorded[] } {
  const lines: Recorded[] = [];
  return {
    lines,
    of: (level) => lines.filter((line) => line.level === level),
    warn: (obj, msg) => void lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    info: (obj, msg) => void lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
}

/**
 * A TCP proxy in front of the real test Redis on a port of its own, so a test can take "Redis"
 * away (stop: refuse connections, cut the open ones), bring it back on the same port, or freeze
 * it (connected, but nothing reaches Redis any more) without touching the shared instance.
 */
async function redisProxy(target: string) {
  const { hostname, port: targetPort } = new URL(target);
  const port = await freePort();
  const sockets = new Set<Socket>();
  let frozen = false;
  let server: Server | undefined;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const start = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(targetPort || 6379), hostname);
      track(client);
      track(upstream);
      client.on('data', (chunk) => void (frozen || upstream.write(chunk)));
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    freeze: (value: boolean) => void (frozen = value),
    stop: async () => {
      const closed = new Promise((resolve) => server?.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Counts a client's error events (every reconnect attempt that failed). */
function countErrors(redis: Redis): { readonly count: number } {
  const counter = { count: 0 };
  redis.on('error', () => void (counter.count += 1));
  return counter;
}

describe('createRedisClient against the real Redis', () => {
  let shared: TestRedis;
  const clients: Redis[] = [];
  /** Every client a test opens is closed after it. */
  const open = (client: Redis): Redis => {
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    shared = await testRedis('redis-client');
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await shared.cleanup();
  });

  it('request-path: connects with the fail-fast options and the configured command timeout', async () => {
    const logger = recordingLogger();
    const redis = open(createRedisClient({ REDIS_URL: shared.url, REDIS_COMMAND_TIMEOUT_MS: 250 }, logger, 'request-path'));
    // No offline queue: a command before the connection is ready fails at once instead of waiting.
    await expect(redis.get(`${shared.prefix}early`)).rejects.toThrow(/enableOfflineQueue/);
    await waitForRedis(redis);
    expect(redis.options).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 250, connectTimeout: 1_000 });
    await redis.set(`${shared.prefix}k`, 'v');
    expect(await redis.get(`${shared.prefix}k`)).toBe('v');
    expect(logger.lines).toEqual([]);
  });

  it('request-path: a reply that never comes fails after REDIS_COMMAND_TIMEOUT_MS', async () => {
    const proxy = await redisProxy(shared.url);
    try {
      const redis = open(createRedisClient({ REDIS_URL: proxy.url, REDIS_COMMAND_TIMEOUT_MS: 200 }, recordingLogger(), 'request-path'));
      await waitForRedis(redis);
      proxy.freeze(true);
      const started = performance.now();
      await expect(redis.ping()).rejects.toThrow(/timed out/i);
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      await proxy.stop();
    }
  });

  it('queue: connects with maxRetriesPerRequest null and no command timeout; early commands wait for the connection', async () => {
    const redis = open(createRedisClient({ REDIS_URL: shared.url }, recordingLogger(), 'queue'));
    expect(await redis.ping()).toBe('PONG'); // queued until ready, not refused
    expect(redis.options.maxRetriesPerRequest).toBeNull();
    expect(redis.options.commandTimeout).toBeUndefined();
    expect(redis.options.enableOfflineQueue).toBe(true);
  });

  it('command: connects only when asked, then works', async () => {
    const redis = open(createRedisClient({ REDIS_URL: shared.url }, recordingLogger(), 'command'));
    // ioredis moves to 'connecting' synchronously when it connects on construction.
    expect(redis.status).toBe('wait');
    await waitForRedis(redis);
    expect(await redis.ping()).toBe('PONG');
  });

  it('command: a dead port fails at once, one attempt, naming host:port but never the password', async () => {
    const port = await freePort();
    const logger = recordingLogger();
    const redis = open(createRedisClient({ REDIS_URL: `redis://operator:s3cret-pass@127.0.0.1:${port}` }, logger, 'command'));
    const errors = countErrors(redis);
    const started = performance.now();
    const failure = await waitForRedis(redis).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(new RegExp(`^cannot reach Redis at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    expect(failure?.message).not.toContain('s3cret');
    expect(performance.now() - started).toBeLessThan(2_000);
    // 'end' means ioredis gave up for good: no attempt can follow the one counted.
    await expect.poll(() => redis.status).toBe('end');
    expect(errors.count).toBe(1);
    expect(JSON.stringify(logger.lines)).not.toContain('s3cret');
  });

  it('waitForRedis gives up after its timeout while a service client keeps retrying', async () => {
    const port = await freePort();
    const redis = open(
      createRedisClient({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: 500 }, recordingLogger(), 'request-path'),
    );
    await expect(waitForRedis(redis, { timeoutMs: 300 })).rejects.toThrow(`cannot reach Redis at 127.0.0.1:${port}: `);
    expect(redis.status).not.toBe('end');
  });

  it('every role has an option set; request-path refuses to run without a command timeout', () => {
    for (const role of ['request-path', 'queue', 'command'] as const)
      expect(redisOptions(role, { REDIS_URL: shared.url, REDIS_COMMAND_TIMEOUT_MS: 500 })).toBeTypeOf('object');
    expect(() => redisOptions('request-path', { REDIS_URL: shared.url })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
  });
});

describe('the outage logging policy', () => {
  let shared: TestRedis;

  beforeAll(async () => {
    shared = await testRedis('redis-outage');
  });
  afterAll(async () => {
    await shared.cleanup();
  });

  it('logs a dead port once, not every reconnect attempt', async () => {
    const port = await freePort();
    const logger = recordingLogger();
    const redis = createRedisClient({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: 500 }, logger, 'request-path');
    const errors = countErrors(redis);
    try {
      await expect.poll(() => errors.count).toBeGreaterThanOrEqual(4);
      expect(logger.of('warn')).toHaveLength(1);
      expect(logger.of('info')).toHaveLength(0);
      const [first] = logger.of('warn');
      expect(first?.msg).toBe('redis unavailable');
      expect(first?.obj).toMatchObject({ role: 'request-path', redis: `127.0.0.1:${port}`, err: { code: 'ECONNREFUSED' } });
    } finally {
      redis.disconnect();
    }
  });

  it('logs the first error of an outage and the recovery, then a later outage again', async () => {
    const proxy = await redisProxy(shared.url);
    const logger = recordingLogger();
    const redis = createRedisClient({ REDIS_URL: proxy.url }, logger, 'queue');
    const errors = countErrors(redis);
    try {
      await waitForRedis(redis);
      expect(logger.lines).toEqual([]);

      await proxy.stop();
      await expect.poll(() => errors.count).toBeGreaterThanOrEqual(3);
      expect(logger.lines.map((l) => l.msg)).toEqual(['redis unavailable']);

      await proxy.start();
      await waitForRedis(redis);
      expect(logger.lines.map((l) => l.msg)).toEqual(['redis unavailable', 'redis is back']);
      const back = logger.of('info')[0]!.obj;
      expect(back).toMatchObject({ role: 'queue', redis: new URL(proxy.url).host });
      expect(back.down_ms).toBeGreaterThan(0);
      expect(back.errors_not_logged).toBe(errors.count - 1);
      expect(await redis.ping()).toBe('PONG');

      await proxy.stop();
      const before = errors.count;
      await expect.poll(() => errors.count).toBeGreaterThanOrEqual(before + 3);
      expect(logger.lines.map((l) => l.msg)).toEqual(['redis unavailable', 'redis is back', 'redis unavailable']);
    } finally {
      redis.disconnect();
      await proxy.stop().catch(() => undefined);
    }
  });

  it('tells connection errors (left to this policy) from other errors', async () => {
    const port = await freePort();
    const redis = createRedisClient({ REDIS_URL: `redis://127.0.0.1:${port}` }, quietRedisLogger, 'command');
    const refused = await new Promise<Error>((resolve) => {
      redis.once('error', resolve);
      void waitForRedis(redis).catch(() => undefined);
    });
    expect(isRedisConnectionError(refused)).toBe(true);
    await expect(redis.get('k')).rejects.toSatisfy(isRedisConnectionError); // "Connection is closed."
    expect(isRedisConnectionError(new Error('ERR unknown command'))).toBe(false);
    expect(isRedisConnectionError('ECONNREFUSED')).toBe(false);
  });

  it('logs nothing for a clean shutdown', async () => {
    const logger = recordingLogger();
    const redis = createRedisClient({ REDIS_URL: shared.url, REDIS_COMMAND_TIMEOUT_MS: 500 }, logger, 'request-path');
    await waitForRedis(redis);
    await redis.quit();
    // The connection's close and end events (what could log) have all fired once it is 'end'.
    await expect.poll(() => redis.status).toBe('end');
    expect(logger.lines).toEqual([]);
  });
});
