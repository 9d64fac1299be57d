import { describe, expect, it } from 'vitest';
import { meanScores, scoreQuery } from './metrics.ts';

describe('relevance metrics', () => {
  it('scores the rank of the first right answer and the share of right answers in the top 10', () => {
    expect(scoreQuery(['a', 'b', 'c'], new Set(['a']))).toEqual({
      success_at_1: 1,
      success_at_3: 1,
      reciprocal_rank_at_10: 1,
      precision_at_10: 1,
      ndcg_at_10: 1,
      zero_results: 0,
    });
    expect(scoreQuery(['x', 'y', 'a', 'b'], new Set(['a', 'b']))).toEqual({
      success_at_1: 0,
      success_at_3: 1,
      reciprocal_rank_at_10: 1 / 3,
      precision_at_10: 1,
      // (1/log2(4) + 1/log2(5)) / (1 + 1/log2(3))
      ndcg_at_10: (0.5 + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)),
      zero_results: 0,
    });
    const late = scoreQuery(['1', '2', '3', '4', '5', 'a', '7', '8', '9', '10', 'b'], new Set(['a', 'b', 'c', 'd']));
    expect(late).toMatchObject({ success_at_1: 0, success_at_3: 0, reciprocal_rank_at_10: 1 / 6, precision_at_10: 0.25 });
    expect(late.ndcg_at_10).toBeCloseTo(1 / Math.log2(7) / (1 + 1 / Math.log2(3) + 0.5 + 1 / Math.log2(5)), 10);
    expect(scoreQuery([], new Set(['a']))).toMatchObject({ reciprocal_rank_at_10: 0, zero_results: 1 });
  });

  it('averages per kind', () => {
    const mean = meanScores([scoreQuery(['a'], new Set(['a'])), scoreQuery(['x', 'a'], new Set(['a'])), scoreQuery([], new Set(['a']))]);
    expect(mean).toEqual({
      queries: 3,
      success_at_1: 0.333,
      success_at_3: 0.667,
      mrr_at_10: 0.5,
      precision_at_10: 0.667,
      ndcg_at_10: 0.544,
      zero_result_rate: 0.333,
    });
  });
});
