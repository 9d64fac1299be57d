import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchJobId,
  createRunStore,
  enrichmentQueue,
  JOB_NAMES,
  QUEUE_NAMES,
  registerNightlySchedule,
  runIdForJob,
  type BatchResult,
} from '@fragrance/jobs';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { UnrecoverableError, Worker } from 'bullmq';
import { UsageError, type CommandContext } from '../command.ts';
import { enrichGroup } from './enrich.ts';

const batch = (rows: number): BatchResult => ({
  seen: rows,
  changed: rows - 1,
  unchanged: 1,
  failed: 0,
  conflicts: 0,
  per_enricher: { ai_enriched: { changed: rows - 1, unchanged: 1, failed: 0 } },
});

describe('ops enrich (real Redis, a BullMQ worker standing in for services/worker)', () => {
  let redis: TestRedis;
  let prefix: string;
  beforeAll(async () => {
    redis = await testRedis('ops-enrich');
    prefix = redis.prefix.replace(/:$/, '');
  });
  afterAll(() => redis.cleanup());

  /** What the command running now has written to stderr so far (its progress lines). */
  let err: Buffer[] = [];
  async function run(command: string, argv: string[]): Promise<{ out: string; err: string }> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: Buffer[] = [];
    err = [];
    stdout.on('data', (c: Buffer) => out.push(c));
    stderr.on('data', (c: Buffer) => err.push(c));
    const ctx: CommandContext = { argv, env: { REDIS_URL: redis.url, JOBS_PREFIX: prefix }, stdout, stderr, stdin: new PassThrough() };
    const spec = enrichGroup.commands[command];
    if (!spec) throw new Error(`no command ${command}`);
    await spec.run(ctx);
    return { out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() };
  }

  it('status before anything ran', async () => {
    const { out } = await run('status', []);
    expect(out).toMatch(/nightly: not scheduled/);
    expect(out).toMatch(/current: no run in progress/);
    expect(out).toMatch(/failed batches: none/);
  });

  it('run follows the run the worker starts to its summary; status shows it, the schedule and failed batches', async () => {
    const runs = createRunStore({ redis: redis.redis, prefix });
    const queue = enrichmentQueue({ connection: redis.connect({ maxRetriesPerRequest: null }), prefix });
    await registerNightlySchedule(queue, { cron: '0 2 * * *', timezone: 'Australia/Sydney' });
    await queue.drain(true); // the scheduler's next job stays delayed; nothing else queued
    // Plans a two-batch run, records the second batch once the first was shown, and fails a batch job of an older run.
    const worker = new Worker(
      QUEUE_NAMES.enrichment,
      async (job) => {
        if (job.name === JOB_NAMES.enrichBatch) throw new UnrecoverableError('AI endpoint answered 500');
        const id = runIdForJob(job.id ?? '');
        await runs.begin({ id, trigger: 'manual', full: true, as_of: new Date().toISOString() });
        await runs.savePlan(id, {
          rows_total: 7,
          batches: [
            ['a', 'b', 'c', 'd'],
            ['e', 'f', 'g'],
          ],
          au_unmatched_offers: 2,
          au_unmatched_sample: ['Shop: X — Y (EDP)'],
        });
        await runs.markPlanned(id);
        await runs.recordBatch(id, 0, 'done', batch(4));
        // The second batch lands only once `enrich run` has shown the first: it follows a run in progress.
        await expect.poll(() => Buffer.concat(err).toString(), { timeout: 10_000 }).toMatch(/enrich: 4\/7 rows/);
        await runs.recordBatch(id, 1, 'done', batch(3));
        return { run_id: id };
      },
      { connection: redis.connect({ maxRetriesPerRequest: null }), prefix },
    );
    try {
      await queue.add(
        JOB_NAMES.enrichBatch,
        { run_id: 'run-old', batch_no: 3, full: false, as_of: new Date().toISOString(), ids: ['x'] },
        { jobId: batchJobId('run-old', 3) },
      );
      const { out, err } = await run('run', ['--full']);
      expect(out).toMatch(/queued run run-\S+ \(full\)/);
      expect(out).toMatch(/: completed/);
      expect(out).toMatch(/rows: 7 selected, 7 seen, 5 changed, 2 unchanged, 0 failed/);
      expect(out).toMatch(/batches: 2\/2 done, 0 failed/);
      expect(out).toMatch(/AU feed offers matching no catalogue row: 2/);
      expect(err).toMatch(/enrich: 7\/7 rows/);

      const status = await run('status', []);
      expect(status.out).toMatch(/nightly: "0 2 \* \* \*" Australia\/Sydney, next 20\d\d-/);
      expect(status.out).toMatch(/workers connected: 1/);
      expect(status.out).toMatch(/last runs:\nrun run-\S+ \(manual, full\): completed/);
      expect(status.out).toMatch(/run-old-b00003 {2}run run-old batch 3 \(1 rows\), 1 attempts, .*: AI endpoint answered 500/);
      const json = JSON.parse((await run('status', ['--json'])).out) as {
        current: unknown;
        last: { rows_seen: number }[];
        failed_batches: unknown[];
      };
      expect(json.current).toBeNull();
      expect(json.last[0]?.rows_seen).toBe(7);
      expect(json.failed_batches).toHaveLength(1);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('rejects bad options as usage errors', async () => {
    await expect(run('run', ['--timeout-minutes', 'soon'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('status', ['--runs', '0'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('run', ['--bogus'])).rejects.toBeInstanceOf(UsageError);
  });
});
