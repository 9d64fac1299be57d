// A bench runs beside a running `npm start`: every service it starts binds its metrics on a free
// port (METRICS_PORT 0), never the stack's 9480-9484. bench:export once started its catalogue on
// the default 9481 and failed while the stack ran.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, testRedis } from '@fragrance/testkit';
import { redisCpuMs, startBenchService, stopChildren } from './support.ts';

afterAll(() => stopChildren());

describe('the services a bench starts', () => {
  it('get METRICS_PORT 0 whatever the caller passes besides', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-support-'));
    const entry = join(dir, 'print-env.ts');
    writeFileSync(entry, 'process.stdout.write(JSON.stringify({ metrics: process.env.METRICS_PORT, port: process.env.PORT }));\n');
    const child = startBenchService('catalogue', { PORT: '1234' }, 'test', entry);
    expect(await child.exited).toBe(0);
    expect(JSON.parse(child.output())).toEqual({ metrics: '0', port: '1234' });
  });

  it('are started through startBenchService only, never spawned from a bench directly', () => {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const direct = readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'support.ts')
      .filter((file) => /spawn\([^)]*['"`]services\/\w+\/src\/main\.ts/.test(readFileSync(join(dir, file), 'utf8')));
    expect(direct).toEqual([]);
  });
});

describe('redisCpuMs', () => {
  it("reads a Redis server's CPU time, which grows with its work, and 0 from none", async () => {
    const redis = await testRedis('bench-cpu');
    try {
      const before = await redisCpuMs(redis.url);
      expect(before).toBeGreaterThan(0);
      await Promise.all(Array.from({ length: 2_000 }, (_, i) => redis.redis.set(`${redis.prefix}k${i}`, 'x'.repeat(100))));
      await expect.poll(() => redisCpuMs(redis.url)).toBeGreaterThan(before);
    } finally {
      await redis.cleanup();
    }
    expect(await redisCpuMs(`redis://127.0.0.1:${await freePort()}`)).toBe(0);
  });
});
