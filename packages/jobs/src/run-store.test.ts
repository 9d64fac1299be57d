import { testRedis, type TestRedis } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchResult } from './payloads.ts';
import { createRunStore, type RunStore } from './run-store.ts';

const result = (rows: number, changed: number): BatchResult => ({
  seen: rows,
  changed,
  unchanged: rows - changed,
  failed: 0,
  conflicts: 0,
  per_enricher: { ai_enriched: { changed, unchanged: rows - changed, failed: 0 } },
});

describe('run store (real Redis)', () => {
  let redis: TestRedis;
  let store: RunStore;
  beforeAll(async () => {
    redis = await testRedis('runstore');
    store = createRunStore({ redis: redis.redis, prefix: redis.prefix.replace(/:$/, '') });
  });
  afterAll(() => redis.cleanup());

  it('runs one at a time, counts each batch once and finishes after the last one', async () => {
    const asOf = new Date().toISOString();
    const begun = await store.begin({ id: 'run-1', trigger: 'manual', full: false, as_of: asOf });
    expect(begun.started).toBe(true);
    expect(await store.begin({ id: 'run-2', trigger: 'schedule', full: false, as_of: asOf })).toEqual({ started: false, current: 'run-1' });
    // The same run id (a redone planning job) is let through.
    expect((await store.begin({ id: 'run-1', trigger: 'manual', full: false, as_of: asOf })).started).toBe(true);

    await store.savePlan('run-1', {
      rows_total: 5,
      batches: [
        ['a', 'b', 'c'],
        ['d', 'e'],
      ],
      au_unmatched_offers: 1,
      au_unmatched_sample: ['x'],
    });
    expect(await store.loadPlan('run-1')).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    expect(await store.markPlanned('run-1')).toBe(false);

    expect(await store.recordBatch('run-1', 0, 'done', result(3, 2))).toBe(false);
    // A redone batch reports again: not counted twice.
    expect(await store.recordBatch('run-1', 0, 'done', result(3, 0))).toBe(false);
    expect((await store.current())?.id).toBe('run-1');
    expect(await store.recordBatch('run-1', 1, 'done', result(2, 1))).toBe(true);

    const summary = await store.get('run-1');
    expect(summary).toMatchObject({
      status: 'completed',
      rows_total: 5,
      rows_seen: 5,
      changed: 3,
      unchanged: 2,
      batches_done: 2,
      batches_failed: 0,
      au_unmatched_offers: 1,
      per_enricher: { ai_enriched: { changed: 3, unchanged: 2, failed: 0 } },
    });
    expect(summary?.finished_at).not.toBeNull();
    expect(await store.current()).toBeUndefined();
    expect((await store.begin({ id: 'run-2', trigger: 'schedule', full: false, as_of: asOf })).started).toBe(true);
    expect((await store.list()).map((r) => r.id)).toEqual(['run-2', 'run-1']);
  });

  it('finishes an empty run at once and flags a run with failed batches', async () => {
    const other = createRunStore({ redis: redis.redis, prefix: `${redis.prefix}b` });
    const asOf = new Date().toISOString();
    await other.begin({ id: 'empty', trigger: 'manual', full: false, as_of: asOf });
    await other.savePlan('empty', { rows_total: 0, batches: [], au_unmatched_offers: 0, au_unmatched_sample: [] });
    expect(await other.markPlanned('empty')).toBe(true);
    expect((await other.get('empty'))?.status).toBe('completed');

    await other.begin({ id: 'bad', trigger: 'manual', full: false, as_of: asOf });
    await other.savePlan('bad', { rows_total: 2, batches: [['a'], ['b']], au_unmatched_offers: 0, au_unmatched_sample: [] });
    await other.markPlanned('bad');
    await other.recordBatch('bad', 0, 'done', result(1, 1));
    await other.recordBatch('bad', 1, 'failed', { ...result(0, 0), failed: 1 });
    expect(await other.get('bad')).toMatchObject({ status: 'completed_with_failures', failed: 1, batches_failed: 1 });

    // A run whose planning gave up is failed and no longer blocks the next one.
    await other.begin({ id: 'doomed', trigger: 'schedule', full: false, as_of: asOf });
    await other.fail('doomed', 'search_phase_execution_exception');
    expect(await other.get('doomed')).toMatchObject({ status: 'failed', error: 'search_phase_execution_exception' });
    expect(await other.current()).toBeUndefined();
    expect((await other.begin({ id: 'next', trigger: 'schedule', full: false, as_of: asOf })).started).toBe(true);
  });
});
