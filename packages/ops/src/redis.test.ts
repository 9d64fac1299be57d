import { PassThrough } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, testRedis, type TestRedis } from '@fragrance/testkit';
import type { CommandContext } from './command.ts';
import { enrichGroup } from './commands/enrich.ts';
import { keysGroup } from './commands/keys.ts';
import { usersGroup } from './commands/users.ts';
import { withRedis } from './redis.ts';

describe('withRedis: Redis for one ops command', () => {
  let shared: TestRedis;
  beforeAll(async () => {
    shared = await testRedis('ops-redis');
  });
  afterAll(() => shared.cleanup());

  it('hands the command a ready connection and closes it afterwards, also when the command fails', async () => {
    let seen: Redis | undefined;
    expect(
      await withRedis({ REDIS_URL: shared.url }, async (redis) => {
        seen = redis;
        return redis.ping();
      }),
    ).toBe('PONG');
    await expect.poll(() => seen?.status).toBe('end');

    await expect(
      withRedis({ REDIS_URL: shared.url }, async (redis) => {
        seen = redis;
        throw new Error('the command failed');
      }),
    ).rejects.toThrow('the command failed');
    await expect.poll(() => seen?.status).toBe('end');
  });

  it('fails at once when Redis is down, naming host:port and never the password', async () => {
    const port = await freePort();
    let ran = false;
    const started = performance.now();
    const failure = await withRedis({ REDIS_URL: `redis://ops:hunter2-secret@127.0.0.1:${port}` }, async () => {
      ran = true;
    }).catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(new RegExp(`^cannot reach Redis at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    expect((failure as Error).message).not.toContain('hunter2');
    expect(ran).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('is what keys, users and enrich commands use: each fails the same way on a dead Redis', async () => {
    const port = await freePort();
    const ctx = (argv: string[]): CommandContext => ({
      argv,
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    });
    const expected = new RegExp(`^cannot reach Redis at 127\\.0\\.0\\.1:${port}: `);
    await expect(keysGroup.commands.list!.run(ctx([]))).rejects.toThrow(expected);
    await expect(usersGroup.commands.list!.run(ctx([]))).rejects.toThrow(expected);
    await expect(enrichGroup.commands.status!.run(ctx([]))).rejects.toThrow(expected);
  });
});
