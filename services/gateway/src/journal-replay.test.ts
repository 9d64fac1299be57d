import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { freePort, startService, type RunningService } from '@fragrance/testkit';
import { bearer } from './testing/app.ts';
import { ownRedisTest } from './testing/own-redis.ts';

const today = () => new Date().toISOString().slice(0, 10);

/** The pid of the gateway process the testkit started on `port` (its environment names the port). */
function gatewayPid(port: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (cmdline.includes('services/gateway/src/main.ts') && environ.includes(`PORT=${port}`)) return Number(entry);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  throw new Error(`no gateway process on port ${port}`);
}

/**
 * `journal`, the directory the test's gateway processes journal to; `startGatewayProcess`, which
 * starts the gateway (main.ts) on the file's own Redis and stand-in upstream, always on the same
 * port, and stops it after the test.
 */
const it = ownRedisTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('journal', async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'fcs-journal-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('startGatewayProcess', async ({ redis, upstream, journal }, { onCleanup }) => {
    const port = await freePort();
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      REDIS_COMMAND_TIMEOUT_MS: '300',
      CATALOGUE_SERVICE_URL: upstream.url,
      ADMISSION_JOURNAL_DIR: journal,
      // Every line synced: this test kills the process, not the host, so the default would do too.
      ADMISSION_JOURNAL_FSYNC_MS: '0',
    };
    const started: RunningService[] = [];
    onCleanup(async () => {
      await Promise.all(started.map((gateway) => gateway.stop()));
    });
    return async () => {
      const gateway = await startService('gateway', port, env);
      started.push(gateway);
      return gateway;
    };
  });

// A gateway process SIGKILLed while it admits without Redis: its journal is on disk, and the next
// start of the gateway replays it into Redis, each request once (own redis-server).
describe('journal replay after a crash (real gateway process, own redis-server)', () => {
  it('replays what a killed gateway admitted, once, even when the same journal is replayed again', async ({
    redis,
    keys,
    journal: dir,
    startGatewayProcess,
  }) => {
    const { apiKey, record } = await keys.create({ owner: 'crash', quota: 1_000 });
    const usageKey = `${redis.prefix}usage:${record.id}:${today()}`;
    const used = async () => Number(await redis.redis.get(usageKey));
    let gateway = await startGatewayProcess();
    const get = async () => (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status;
    expect(await get()).toBe(200);

    await redis.stop();
    const during: number[] = [];
    for (let i = 0; i < 7; i++) during.push(await get());
    expect(during).toEqual(Array.from({ length: 7 }, () => 200));
    process.kill(gatewayPid(Number(new URL(gateway.url).port)), 'SIGKILL');
    await gateway.stop(); // resolves once the killed process is gone
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
    const journal = join(dir, file!);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(7);
    const copy = `${journal}.copy`;
    copyFileSync(journal, copy);

    await redis.start();
    expect(await used()).toBe(1);
    gateway = await startGatewayProcess();
    await expect.poll(used, { timeout: 10_000 }).toBe(8);
    await expect.poll(() => readFileSync(journal, 'utf8'), { timeout: 5_000 }).toBe('');

    // A crash between the replay and the journal's truncation leaves it whole: counted once anyway.
    await gateway.stop();
    copyFileSync(copy, journal);
    gateway = await startGatewayProcess();
    await expect.poll(() => readFileSync(journal, 'utf8'), { timeout: 5_000 }).toBe('');
    expect(await used()).toBe(8);
  });
});
