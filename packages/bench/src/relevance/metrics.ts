/** Ranking metrics of one query: `ranked` ids as returned (best first), `relevant` the right answers. */
export interface QueryScores {
  success_at_1: number;
  success_at_3: number;
  /** 1 / rank of the first relevant hit within the top 10, else 0. */
  reciprocal_rank_at_10: number;
  /** Relevant hits among the top 10, divided by min(10, |relevant|) (a query with 3 right answers can score 1). */
  precision_at_10: number;
  /** DCG of the top 10 over the ideal DCG (binary gains: a right answer counts 1). */
  ndcg_at_10: number;
  /** 1 when the page came back empty. */
  zero_results: number;
}

const discount = (i: number) => 1 / Math.log2(i + 2);

export function scoreQuery(ranked: readonly string[], relevant: ReadonlySet<string>): QueryScores {
  const top10 = ranked.slice(0, 10);
  const first = top10.findIndex((id) => relevant.has(id));
  const found = top10.filter((id) => relevant.has(id)).length;
  const dcg = top10.reduce((sum, id, i) => sum + (relevant.has(id) ? discount(i) : 0), 0);
  let ideal = 0;
  for (let i = 0; i < Math.min(10, relevant.size); i++) ideal += discount(i);
  return {
    success_at_1: first === 0 ? 1 : 0,
    success_at_3: first >= 0 && first < 3 ? 1 : 0,
    reciprocal_rank_at_10: first >= 0 ? 1 / (first + 1) : 0,
    precision_at_10: relevant.size === 0 ? 0 : found / Math.min(10, relevant.size),
    ndcg_at_10: ideal === 0 ? 0 : dcg / ideal,
    zero_results: ranked.length === 0 ? 1 : 0,
  };
}

export interface KindScores {
  queries: number;
  success_at_1: number;
  success_at_3: number;
  mrr_at_10: number;
  precision_at_10: number;
  ndcg_at_10: number;
  /** Share of the queries that found nothing. */
  zero_result_rate: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Means over the queries of one kind, to 3 decimals. */
export function meanScores(scores: readonly QueryScores[]): KindScores {
  const n = Math.max(1, scores.length);
  const sum = (pick: (s: QueryScores) => number) => scores.reduce((total, s) => total + pick(s), 0) / n;
  return {
    queries: scores.length,
    success_at_1: round(sum((s) => s.success_at_1)),
    success_at_3: round(sum((s) => s.success_at_3)),
    mrr_at_10: round(sum((s) => s.reciprocal_rank_at_10)),
    precision_at_10: round(sum((s) => s.precision_at_10)),
    ndcg_at_10: round(sum((s) => s.ndcg_at_10)),
    zero_result_rate: round(sum((s) => s.zero_results)),
  };
}
