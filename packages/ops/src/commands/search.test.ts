import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '@fragrance/api-keys';
import { createSearchRecorder, type SearchReport } from '@fragrance/search-analytics';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { UsageError, type CommandContext } from '../command.ts';
import { searchGroup } from './search.ts';

const today = new Date().toISOString().slice(0, 10);
const yesterday = addDays(today, -1);

describe('ops search report (real Redis)', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await testRedis('ops-search');
    // Counted the way the gateway counts them.
    const record = createSearchRecorder({ redis: redis.redis, prefix: redis.prefix });
    const search = (owner: string, day: string, query: string, total = 3, relaxed = false) => record({ owner, day, query, total, relaxed });
    for (let i = 0; i < 3; i++) await search('Acme Perfumery', today, 'Rose Oud');
    await search('Acme Perfumery', today, 'YSL Cinema', 0);
    await search('Acme Perfumery', today, 'Mania EDP', 2, true);
    await search('Beta Scents', today, 'vetiver');
    await search('Beta Scents', yesterday, 'oud', 0);
  });
  afterAll(() => redis.cleanup());

  async function run(argv: string[]): Promise<string> {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ctx: CommandContext = {
      argv,
      env: { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix },
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    };
    await searchGroup.commands.report!.run(ctx);
    return Buffer.concat(chunks).toString();
  }

  it("prints every owner's searches of today: top, found nothing, relaxed", async () => {
    const out = await run([]);
    expect(out).toContain(`search report ${today} (quota day in UTC)`);
    expect(out).toContain('Acme Perfumery: 5 searches, 1 found nothing (20.0 %), 1 relaxed (20.0 %)');
    expect(out).toMatch(/top queries:\n\s+3 {2}rose oud\n\s+1 {2}mania edp\n\s+1 {2}ysl cinema\n/);
    expect(out).toMatch(/found nothing:\n\s+1 {2}ysl cinema\n/);
    expect(out).toMatch(/relaxed:\n\s+1 {2}mania edp/);
    expect(out).toContain('Beta Scents: 1 searches, 0 found nothing (0.0 %), 0 relaxed (0.0 %)');
    expect(out.indexOf('Acme Perfumery')).toBeLessThan(out.indexOf('Beta Scents'));
  });

  it('narrows to one owner, another day and a limit; --json for scripts', async () => {
    const parsed = JSON.parse(await run(['--owner', 'Acme Perfumery', '--limit', '1', '--json'])) as {
      day: string;
      owners: SearchReport[];
    };
    expect(parsed.day).toBe(today);
    expect(parsed.owners).toEqual([
      {
        owner: 'Acme Perfumery',
        day: today,
        searches: 5,
        zeroResults: 1,
        relaxed: 1,
        topQueries: [{ query: 'rose oud', count: 3 }],
        zeroResultQueries: [{ query: 'ysl cinema', count: 1 }],
        relaxedQueries: [{ query: 'mania edp', count: 1 }],
      },
    ]);
    const before = await run(['--day', yesterday]);
    expect(before).toContain('Beta Scents: 1 searches, 1 found nothing (100.0 %)');
    expect(before).not.toContain('Acme');
    expect(await run(['--owner', 'Nobody', '--day', yesterday])).toContain('no searches counted for Nobody that day');
  });

  it('refuses a bad day or limit before touching Redis', async () => {
    for (const argv of [
      ['--day', addDays(today, 1)],
      ['--day', addDays(today, -35)],
      ['--day', '2026-02-30'],
      ['--day', 'today'],
      ['--limit', '0'],
      ['--limit', '101'],
      ['--top', '5'],
    ]) {
      await expect(run(argv), argv.join(' ')).rejects.toBeInstanceOf(UsageError);
    }
  });
});
