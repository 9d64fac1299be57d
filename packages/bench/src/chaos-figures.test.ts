import { describe, expect, it } from 'vitest';
import {
  answersBefore,
  dataIdsHash,
  esOutageTargetMet,
  failuresByInterface,
  outageFigures,
  overAdmission,
  redisTargetMet,
  zipfPlan,
  zipfTargets,
  type ZipfSample,
} from './chaos-figures.ts';

const sample = (target: string, status: number, hash: string | null, stale = false): ZipfSample => ({
  target,
  start: 0,
  end: 1,
  status,
  stale,
  hash,
});

describe('the Zipf workload', () => {
  const targets = zipfTargets(['rose', 'oud', 'fig'], ['a', 'b', 'c', 'd'], 1);

  it('names every search page, word pair and detail once, in a seeded order', () => {
    expect(targets).toHaveLength(3 * 2 + 3 + 4);
    expect(new Set(targets).size).toBe(targets.length);
    expect(targets).toContain('/v1/fragrances?query=fig+oud&limit=10');
    expect(targets).toContain('/v1/fragrances/c');
    expect(zipfTargets(['rose', 'oud', 'fig'], ['a', 'b', 'c', 'd'], 1)).toEqual(targets);
  });

  it('draws the first ranks most: a warm cache can answer most requests', () => {
    const plan = zipfPlan(targets, 10_000, 7);
    const count = (t: string) => plan.filter((p) => p === t).length;
    expect(count(targets[0]!)).toBeGreaterThan(count(targets[5]!) * 3);
    expect(zipfPlan(targets, 100, 7)).toEqual(plan.slice(0, 100));
  });
});

describe('dataIdsHash', () => {
  it('sees the same records in the same order as the same answer, whatever else changed', () => {
    const a = { data: [{ id: '1', name: 'x' }, { id: '2' }], offset: 0 };
    expect(dataIdsHash(a)).toBe(dataIdsHash({ data: [{ id: '1', name: 'y' }, { id: '2' }], offset: 0, took: 3 }));
    expect(dataIdsHash(a)).not.toBe(dataIdsHash({ data: [{ id: '2' }, { id: '1' }] }));
    expect(dataIdsHash({ id: 'p1', name: 'a' })).toBe(dataIdsHash({ id: 'p1', name: 'b' }));
    expect(dataIdsHash({ id: 'p1' })).not.toBe(dataIdsHash({ id: 'p2' }));
  });
});

describe('outage figures', () => {
  const before = answersBefore([sample('/s', 200, 'h1'), sample('/s', 200, 'later'), sample('/d', 503, null), sample('/d', 200, 'h2')]);

  it('counts answers, stale ones, 503s and other failures, and the answered share', () => {
    const f = outageFigures(
      [sample('/s', 200, 'h1'), sample('/d', 200, 'h2', true), sample('/x', 503, null), sample('/y', 0, null), sample('/s', 200, 'h1')],
      before,
    );
    expect(f).toEqual({
      sent: 5,
      answered: 3,
      answered_stale_catalogue: 1,
      answered_edge_cache: 2,
      unavailable_503: 1,
      other_failures: 1,
      answered_share: 0.6,
      compared: 3,
      compared_after_outage: 0,
      wrong: 0,
      unverified: 0,
    });
    expect(esOutageTargetMet(f, true)).toBe(false);
  });

  it('calls an answer wrong when its data are none of the answers before the outage', () => {
    const f = outageFigures([sample('/s', 200, 'other'), sample('/d', 200, 'h2'), sample('/new', 200, 'h3')], before);
    expect(f.wrong).toBe(1);
    expect(f.wrong_answers).toEqual([{ target: '/s', hash: 'other', stale: false, expected: ['h1', 'later'] }]);
    expect(f.unverified).toBe(1);
    expect(esOutageTargetMet(f, true)).toBe(false);
  });

  it('takes any answer the request got before as right (ties of a search ordered by another shard copy)', () => {
    const f = outageFigures([sample('/s', 200, 'h1'), sample('/s', 200, 'later')], before);
    expect(f).toMatchObject({ compared: 2, wrong: 0 });
    expect(f.wrong_answers).toBeUndefined();
  });

  it('checks an answer first seen during the outage against the first one after it', () => {
    const after = answersBefore([sample('/new', 200, 'h3'), sample('/other', 200, 'h4')]);
    const f = outageFigures([sample('/new', 200, 'h3'), sample('/other', 200, 'stale'), sample('/never', 200, 'h5')], before, after);
    expect(f).toMatchObject({ compared: 2, compared_after_outage: 2, wrong: 1, unverified: 1 });
  });

  it('checks that a detail names the record asked for, with or without an earlier answer', () => {
    const right = dataIdsHash({ data: { id: 'p 1', name: 'Rose' } });
    const f = outageFigures(
      [sample('/v1/fragrances/p%201', 200, right), sample('/v1/fragrances/p2', 200, right), sample('/v1/fragrances/p2', 200, right)],
      before,
    );
    expect(f).toMatchObject({ compared: 3, compared_after_outage: 0, wrong: 2, unverified: 0 });
  });

  it('meets the target at 80 % answered, none wrong, searches back', () => {
    const during = [...Array.from({ length: 4 }, () => sample('/s', 200, 'h1')), sample('/x', 503, null)];
    expect(esOutageTargetMet(outageFigures(during, before), true)).toBe(true);
    expect(esOutageTargetMet(outageFigures(during, before), false)).toBe(false);
    expect(esOutageTargetMet(outageFigures([], before), true)).toBe(false);
  });
});

describe('the Redis fault', () => {
  it('splits failures into data-API requests and MCP tool calls', () => {
    const split = failuresByInterface([
      { kind: 'search', failed: true },
      { kind: 'detail', failed: true },
      { kind: 'me', failed: true },
      { kind: 'me', failed: false },
      { kind: 'mcp', failed: true },
      { kind: 'refresh', failed: true },
    ]);
    expect(split).toEqual({ data_api: 3, mcp: 1 });
  });

  it('bounds over-admission by the burst of every gateway', () => {
    const within = overAdmission({ quota: 20, burst: 3, gateways: 2, answered: 26, used_today: 26 });
    expect(within).toMatchObject({ over_admitted: 6, bound: 6, within_bound: true, exact: true });
    expect(overAdmission({ quota: 20, burst: 3, gateways: 2, answered: 27, used_today: 27 }).within_bound).toBe(false);
    expect(overAdmission({ quota: 20, burst: 3, gateways: 2, answered: 18, used_today: 19 })).toMatchObject({
      over_admitted: 0,
      exact: false,
    });
  });

  it('meets the target only with nothing failed, every key exact and the bound held', () => {
    const good = {
      failed_data_api: 0,
      failed_mcp: 0,
      failed_over: true,
      keys_exact: true,
      over_admission: overAdmission({ quota: 20, burst: 3, gateways: 2, answered: 22, used_today: 22 }),
      step_error: undefined,
    };
    expect(redisTargetMet(good)).toBe(true);
    expect(redisTargetMet({ ...good, failed_mcp: 1 })).toBe(false);
    expect(redisTargetMet({ ...good, failed_data_api: 1 })).toBe(false);
    expect(redisTargetMet({ ...good, keys_exact: false })).toBe(false);
    expect(redisTargetMet({ ...good, over_admission: undefined })).toBe(false);
    expect(redisTargetMet({ ...good, failed_over: false })).toBe(false);
  });
});
