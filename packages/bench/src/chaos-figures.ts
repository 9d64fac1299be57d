// Pure pieces of `npm run bench:chaos`: the Zipf plan of the Elasticsearch-outage fault, the
// figures it and the Redis fault report, and their targets (issue 37's "Done when").
import { createHash } from 'node:crypto';
import { seededRandom } from './random.ts';
import { zipfSequence } from './workload.ts';

/**
 * The Zipf workload's request targets (paths under the edge): a search per word and page, a
 * search per pair of words, a detail per id, in a seeded shuffle so ranks mix both kinds.
 */
export function zipfTargets(words: readonly string[], ids: readonly string[], seed: number): string[] {
  const targets: string[] = [];
  for (const word of words) for (const offset of [0, 10]) targets.push(`/v1/fragrances?query=${word}&limit=10&offset=${offset}`);
  for (const a of words) for (const b of words) if (a < b) targets.push(`/v1/fragrances?query=${a}+${b}&limit=10`);
  for (const id of ids) targets.push(`/v1/fragrances/${encodeURIComponent(id)}`);
  const random = seededRandom(seed);
  for (let i = targets.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [targets[i], targets[j]] = [targets[j]!, targets[i]!];
  }
  return targets;
}

/** `length` targets drawn with P(rank k) ∝ 1/(k+1)^exponent: a warm cache can answer most of them. */
export function zipfPlan(targets: readonly string[], length: number, seed: number, exponent = 1): string[] {
  if (targets.length === 0) throw new Error('zipfPlan() needs targets');
  return Array.from(zipfSequence(targets.length, exponent, length, seed), (rank) => targets[rank]!);
}

/**
 * What an answer says, reduced to the ids of its data: a search's hits in order, a detail's id
 * (the whole body when it names none). Two answers with the same hash show the same records.
 */
export function dataIdsHash(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(dataIds(body)))
    .digest('hex')
    .slice(0, 16);
}

function dataIds(body: unknown): unknown {
  if (body === null || typeof body !== 'object') return body;
  const data = (body as { data?: unknown }).data;
  const idOf = (item: unknown) => (item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : item);
  if (Array.isArray(data)) return { list: data.map(idOf) };
  if (data !== null && typeof data === 'object' && 'id' in data) return { one: idOf(data) };
  if ('id' in body) return { one: idOf(body) };
  return body;
}

/** One request of the Zipf workload. */
export interface ZipfSample {
  target: string;
  start: number;
  end: number;
  /** 0: no answer (reset, timeout). */
  status: number;
  /** Marked stale by the catalogue (`Cache-Status: …;detail=stale-if-error`). */
  stale: boolean;
  /** dataIdsHash of a 200's body. */
  hash: string | null;
}

export interface OutageFigures {
  sent: number;
  /** 200s: every one came from a cache (nothing else can answer with Elasticsearch stopped). */
  answered: number;
  /** …of them marked stale by the catalogue (stale-if-error); the rest came from the edge cache. */
  answered_stale_catalogue: number;
  answered_edge_cache: number;
  unavailable_503: number;
  /** Any other answer, a reset or a timeout. */
  other_failures: number;
  /** answered / sent (0..1). */
  answered_share: number;
  /** 200s checked: against the same request's answers before the outage, else after it, and a detail's id against the one asked for. */
  compared: number;
  /** …of them checked against the answers after the outage (no answer before it to compare). */
  compared_after_outage: number;
  /** 200s whose data are none of the answers the same request got before the outage (else after it), or a detail naming another record than asked. */
  wrong: number;
  /** The first ten wrong answers. */
  wrong_answers?: WrongAnswer[];
  /** 200s for a request answered neither before nor after the outage, and no detail (cannot be checked). */
  unverified: number;
}

/**
 * Every distinct answer (hash of a 200) per target, from the requests before the outage (or after
 * it). A search's ties may come back in another order from another copy of a shard, and a cache
 * entry holds whichever answer it got last: an answer is right when it is one of these.
 */
export function answersBefore(samples: readonly ZipfSample[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const s of samples) {
    if (s.status !== 200 || s.hash === null) continue;
    const seen = out.get(s.target) ?? new Set<string>();
    seen.add(s.hash);
    out.set(s.target, seen);
  }
  return out;
}

const DETAIL = /^\/v1\/fragrances\/([^/?]+)$/;

/** A detail target's expected hash: its answer names the record asked for, whatever else it says. */
function detailHash(target: string): string | undefined {
  const id = DETAIL.exec(target)?.[1];
  return id === undefined ? undefined : dataIdsHash({ data: { id: decodeURIComponent(id) } });
}

/**
 * The outage's figures. `before`: each target's first answer before the outage; `after`: its first
 * answer once searches answer again (the reference for a target first answered during the outage).
 */
export function outageFigures(
  during: readonly ZipfSample[],
  before: ReadonlyMap<string, ReadonlySet<string>>,
  after: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): OutageFigures {
  const answered = during.filter((s) => s.status === 200);
  const stale = answered.filter((s) => s.stale).length;
  const unavailable = during.filter((s) => s.status === 503).length;
  let compared = 0;
  let comparedAfter = 0;
  const wrongSamples: WrongAnswer[] = [];
  for (const s of answered) {
    const detail = detailHash(s.target);
    const reference = before.get(s.target) ?? after.get(s.target);
    if (detail === undefined && reference === undefined) continue;
    compared++;
    if (!before.has(s.target) && reference !== undefined) comparedAfter++;
    const otherRecord = detail !== undefined && s.hash !== detail;
    if (otherRecord || (reference !== undefined && !reference.has(s.hash ?? ''))) {
      wrongSamples.push({ target: s.target, hash: s.hash, stale: s.stale, expected: otherRecord ? [detail] : [...(reference ?? [])] });
    }
  }
  const wrong = wrongSamples.length;
  return {
    sent: during.length,
    answered: answered.length,
    answered_stale_catalogue: stale,
    answered_edge_cache: answered.length - stale,
    unavailable_503: unavailable,
    other_failures: during.length - answered.length - unavailable,
    answered_share: during.length ? Math.round((answered.length / during.length) * 1000) / 1000 : 0,
    compared,
    compared_after_outage: comparedAfter,
    wrong,
    unverified: answered.length - compared,
    ...(wrong ? { wrong_answers: wrongSamples.slice(0, 10) } : {}),
  };
}

/** A wrong answer, to look into: what it said and what it should have said. */
export interface WrongAnswer {
  target: string;
  hash: string | null;
  stale: boolean;
  expected: string[];
}

/** Issue 37: with every Elasticsearch node stopped, ≥ 80 % answered from cache, none wrong, and searches answer again after. */
export const ANSWERED_SHARE_TARGET = 0.8;
export function esOutageTargetMet(f: OutageFigures, recovered: boolean): boolean {
  return f.sent > 0 && f.answered_share >= ANSWERED_SHARE_TARGET && f.wrong === 0 && recovered;
}

/** Failed requests split by interface: the data API (searches, details, /v1/me) and MCP tool calls. */
export function failuresByInterface(samples: readonly { kind: string; failed: boolean }[]): { data_api: number; mcp: number } {
  const failed = samples.filter((s) => s.failed);
  return {
    data_api: failed.filter((s) => s.kind === 'search' || s.kind === 'detail' || s.kind === 'me').length,
    mcp: failed.filter((s) => s.kind === 'mcp').length,
  };
}

/** A key at its quota when Redis died: how far past its quota it was admitted, against the documented bound. */
export interface OverAdmission {
  quota: number;
  burst: number;
  gateways: number;
  answered: number;
  used_today: number;
  over_admitted: number;
  /** burst × gateway instances (docs/operations.md, "Degraded admission": the allowance per instance and outage). */
  bound: number;
  within_bound: boolean;
  exact: boolean;
}

export function overAdmission(input: {
  quota: number;
  burst: number;
  gateways: number;
  answered: number;
  used_today: number;
}): OverAdmission {
  const over = Math.max(0, input.answered - input.quota);
  const bound = input.burst * input.gateways;
  return { ...input, over_admitted: over, bound, within_bound: over <= bound, exact: input.used_today === input.answered };
}

/** Issue 37: no failed data-API request, no failed MCP tool call, every key exact, over-admission within the bound. */
export function redisTargetMet(f: {
  failed_data_api: number;
  failed_mcp: number;
  failed_over: boolean | undefined;
  keys_exact: boolean;
  over_admission: OverAdmission | undefined;
  step_error: string | undefined;
}): boolean {
  return (
    f.failed_data_api === 0 &&
    f.failed_mcp === 0 &&
    f.failed_over === true &&
    f.keys_exact &&
    f.over_admission?.within_bound === true &&
    f.over_admission.exact &&
    f.step_error === undefined
  );
}
