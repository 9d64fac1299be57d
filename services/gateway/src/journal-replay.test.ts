import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { freePort, REPO_ROOT, startLocalRedis, startService, stopLocalRedis, uniquePrefix, type RunningService } from '@fragrance/testkit';
import { bearer, close, fakeUpstream, listen } from './test-support.ts';

const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${REPO_ROOT}.local`;
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

// A gateway process SIGKILLed while it admits without Redis: its journal is on disk, and the next
// start of the gateway replays it into Redis, each request once (own redis-server).
describe('journal replay after a crash (real gateway process, own redis-server)', () => {
  let redisPort: number;
  let name: string;
  let url: string;
  let control: Redis;
  let upstream: Server;
  let gateway: RunningService | undefined;
  let gatewayPort: number;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'fcs-journal-'));
  const prefix = uniquePrefix('journal').replace(/-$/, ':');

  beforeAll(async () => {
    redisPort = await freePort();
    name = `gateway-journal-${redisPort}`;
    url = await startLocalRedis({ name, port: redisPort });
    control = new Redis(url, { maxRetriesPerRequest: null });
    control.on('error', () => undefined); // this file stops its Redis on purpose
    upstream = fakeUpstream();
    gatewayPort = await freePort();
    env = {
      REDIS_URL: url,
      REDIS_PREFIX: prefix,
      REDIS_COMMAND_TIMEOUT_MS: '300',
      CATALOGUE_SERVICE_URL: await listen(upstream),
      ADMISSION_JOURNAL_DIR: dir,
      // Every line synced: this test kills the process, not the host, so the default would do too.
      ADMISSION_JOURNAL_FSYNC_MS: '0',
    };
  });
  afterAll(async () => {
    await gateway?.stop();
    await close(upstream);
    control.disconnect();
    await stopLocalRedis({ name, port: redisPort });
    rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
    rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays what a killed gateway admitted, once, even when the same journal is replayed again', async () => {
    const { apiKey, record } = await createKeyStore({ redis: control, prefix }).create({ owner: 'crash', quota: 1_000 });
    const usageKey = `${prefix}usage:${record.id}:${today()}`;
    gateway = await startService('gateway', gatewayPort, env);
    const get = async () => (await fetch(`${gateway!.url}/v1/fragrances`, { headers: bearer(apiKey) })).status;
    expect(await get()).toBe(200);

    await stopLocalRedis({ name, port: redisPort });
    const during: number[] = [];
    for (let i = 0; i < 7; i++) during.push(await get());
    expect(during).toEqual(Array.from({ length: 7 }, () => 200));
    process.kill(gatewayPid(gatewayPort), 'SIGKILL');
    await gateway.stop(); // resolves once the killed process is gone
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
    const journal = join(dir, file!);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(7);
    const copy = `${journal}.copy`;
    copyFileSync(journal, copy);

    await startLocalRedis({ name, port: redisPort });
    expect(Number(await control.get(usageKey))).toBe(1);
    gateway = await startService('gateway', gatewayPort, env);
    await expect.poll(async () => Number(await control.get(usageKey)), { timeout: 10_000 }).toBe(8);
    await expect.poll(() => readFileSync(journal, 'utf8'), { timeout: 5_000 }).toBe('');

    // A crash between the replay and the journal's truncation leaves it whole: counted once anyway.
    await gateway.stop();
    copyFileSync(copy, journal);
    gateway = await startService('gateway', gatewayPort, env);
    await expect.poll(() => readFileSync(journal, 'utf8'), { timeout: 5_000 }).toBe('');
    expect(Number(await control.get(usageKey))).toBe(8);
  });
});
