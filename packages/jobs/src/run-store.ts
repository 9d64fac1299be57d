import type { Redis } from 'ioredis';
import { z } from 'zod';
import { loadLuaScript, scriptCommand, type ScriptArg } from '@fragrance/redis';
import type { BatchResult, RunTrigger } from './payloads.ts';

export const RunStatus = z.enum(['planning', 'running', 'completed', 'completed_with_failures', 'failed']);
export type RunStatus = z.infer<typeof RunStatus>;

const Counts = z.object({ changed: z.number(), unchanged: z.number(), failed: z.number() });

/** One enrichment run as `enrich status` shows it. */
export const RunSummary = z.object({
  id: z.string(),
  trigger: z.string(),
  full: z.boolean(),
  status: RunStatus,
  as_of: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  rows_total: z.number(),
  batches_total: z.number(),
  batches_done: z.number(),
  batches_failed: z.number(),
  rows_seen: z.number(),
  changed: z.number(),
  unchanged: z.number(),
  failed: z.number(),
  conflicts: z.number(),
  per_enricher: z.record(z.string(), Counts),
  au_unmatched_offers: z.number(),
  au_unmatched_sample: z.array(z.string()),
  /** Why a run failed as a whole (its planning failed for good). */
  error: z.string().nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export interface RunPlan {
  rows_total: number;
  /** Row ids per batch, in batch order. */
  batches: string[][];
  au_unmatched_offers: number;
  au_unmatched_sample: string[];
}

export type BeginResult = { started: true; summary: RunSummary } | { started: false; current: string };

const HISTORY = 100;
/** A run whose batches stop reporting for this long no longer blocks a new run. */
const CURRENT_TTL_SECONDS = 6 * 3600;
const FINISHED_PLAN_TTL_SECONDS = 7 * 24 * 3600;

const script = (file: string) => loadLuaScript(new URL(`./${file}`, import.meta.url));
const SCRIPTS = {
  fcsRunBegin: script('begin-run-3.lua'),
  fcsRunRecordBatch: script('record-batch-4.lua'),
  fcsRunMarkPlanned: script('mark-planned-4.lua'),
  fcsRunFail: script('fail-run-2.lua'),
};
type ScriptName = keyof typeof SCRIPTS;

/** The run scripts, registered on the connection once; a caller takes keys first, then arguments. */
function runScriptsOf(redis: Redis): <Reply>(name: ScriptName, ...args: ScriptArg[]) => Promise<Reply> {
  const commands = Object.fromEntries(
    Object.entries(SCRIPTS).map(([name, lua]) => [name, scriptCommand<unknown>(redis, name, lua)]),
  ) as Record<ScriptName, (...args: ScriptArg[]) => Promise<unknown>>;
  return async <Reply>(name: ScriptName, ...args: ScriptArg[]) => (await commands[name](...args)) as Reply;
}

const num = (value: string | undefined): number => (value === undefined ? 0 : Number(value));

function parseSummary(id: string, hash: Record<string, string>): RunSummary {
  const per: Record<string, { changed: number; unchanged: number; failed: number }> = {};
  for (const [field, value] of Object.entries(hash)) {
    const match = /^e:(.+):(changed|unchanged|failed)$/.exec(field);
    if (!match?.[1] || !match[2]) continue;
    const counts = (per[match[1]] ??= { changed: 0, unchanged: 0, failed: 0 });
    counts[match[2] as 'changed' | 'unchanged' | 'failed'] = Number(value);
  }
  return RunSummary.parse({
    id,
    trigger: hash.trigger ?? 'unknown',
    full: hash.full === '1',
    status: hash.status ?? 'planning',
    as_of: hash.as_of ?? '',
    started_at: hash.started_at ?? '',
    finished_at: hash.finished_at ?? null,
    rows_total: num(hash.rows_total),
    batches_total: num(hash.batches_total),
    batches_done: num(hash.batches_done),
    batches_failed: num(hash.batches_failed),
    rows_seen: num(hash.rows_seen),
    changed: num(hash.changed),
    unchanged: num(hash.unchanged),
    failed: num(hash.failed),
    conflicts: num(hash.conflicts),
    per_enricher: per,
    au_unmatched_offers: num(hash.au_unmatched_offers),
    au_unmatched_sample: hash.au_unmatched_sample ? (JSON.parse(hash.au_unmatched_sample) as string[]) : [],
    error: hash.error ?? null,
  });
}

export interface RunStore {
  /** Starts a run, or returns the id of the run already in progress (one run at a time). */
  begin(run: { id: string; trigger: RunTrigger; full: boolean; as_of: string }): Promise<BeginResult>;
  /** Stores the plan once; a redone planning job gets the stored plan back instead of re-selecting. */
  savePlan(id: string, plan: RunPlan): Promise<void>;
  loadPlan(id: string): Promise<string[][] | undefined>;
  /** Marks planning done; finishes the run at once when it has no batches (or all already reported). */
  markPlanned(id: string): Promise<boolean>;
  /**
   * Adds a batch's counters exactly once per batch (a redone batch is not counted twice) and
   * finishes the run when it was the last one. Returns true when this call finished the run.
   */
  recordBatch(id: string, batchNo: number, outcome: 'done' | 'failed', result: BatchResult): Promise<boolean>;
  /** Marks a run failed as a whole (planning gave up) and frees the one-run-at-a-time slot. */
  fail(id: string, error: string): Promise<void>;
  get(id: string): Promise<RunSummary | undefined>;
  /** The run in progress, if any. */
  current(): Promise<RunSummary | undefined>;
  /** Most recent runs first. */
  list(limit?: number): Promise<RunSummary[]>;
}

/** The counters a batch adds to its run, as HINCRBY field/amount pairs. */
function batchIncrements(result: BatchResult): (string | number)[] {
  const increments: (string | number)[] = [
    'rows_seen',
    result.seen,
    'changed',
    result.changed,
    'unchanged',
    result.unchanged,
    'failed',
    result.failed,
    'conflicts',
    result.conflicts,
  ];
  for (const [name, counts] of Object.entries(result.per_enricher)) {
    increments.push(`e:${name}:changed`, counts.changed, `e:${name}:unchanged`, counts.unchanged, `e:${name}:failed`, counts.failed);
  }
  return increments;
}

class RedisRunStore implements RunStore {
  private readonly redis: Redis;
  private readonly keys;
  private readonly runScript: ReturnType<typeof runScriptsOf>;

  constructor({ redis, prefix }: { redis: Redis; prefix: string }) {
    this.redis = redis;
    this.keys = {
      current: `${prefix}:runs:current`,
      index: `${prefix}:runs`,
      hash: (id: string) => `${prefix}:runs:${id}`,
      batches: (id: string) => `${prefix}:runs:${id}:batches`,
      plan: (id: string) => `${prefix}:runs:${id}:plan`,
    };
    this.runScript = runScriptsOf(redis);
  }

  private runKeys(id: string): string[] {
    return [this.keys.hash(id), this.keys.batches(id), this.keys.current, this.keys.plan(id)];
  }

  /** An arrow, so `runs.get` may be passed around on its own. */
  readonly get = async (id: string): Promise<RunSummary | undefined> => {
    const hash = await this.redis.hgetall(this.keys.hash(id));
    return Object.keys(hash).length === 0 ? undefined : parseSummary(id, hash);
  };

  async begin(run: { id: string; trigger: RunTrigger; full: boolean; as_of: string }): Promise<BeginResult> {
    const startedMs = Date.now();
    const fields = {
      trigger: run.trigger,
      full: run.full ? '1' : '0',
      status: 'planning',
      as_of: run.as_of,
      started_at: new Date(startedMs).toISOString(),
    };
    const { keys } = this;
    const current = await this.runScript<string>(
      'fcsRunBegin',
      keys.current,
      keys.hash(run.id),
      keys.index,
      run.id,
      CURRENT_TTL_SECONDS,
      startedMs,
      ...Object.entries(fields).flat(),
    );
    if (current !== '') return { started: false, current };
    await this.trimHistory();
    const summary = await this.get(run.id);
    if (!summary) throw new Error(`run ${run.id} vanished while starting`);
    return { started: true, summary };
  }

  async savePlan(id: string, plan: RunPlan): Promise<void> {
    const tx = this.redis.multi().del(this.keys.plan(id));
    for (const batch of plan.batches) tx.rpush(this.keys.plan(id), JSON.stringify(batch));
    tx.hset(this.keys.hash(id), {
      rows_total: plan.rows_total,
      batches_total: plan.batches.length,
      au_unmatched_offers: plan.au_unmatched_offers,
      au_unmatched_sample: JSON.stringify(plan.au_unmatched_sample),
    });
    const results = await tx.exec();
    const failure = results?.find(([error]) => error);
    if (failure?.[0]) throw failure[0];
  }

  async loadPlan(id: string): Promise<string[][] | undefined> {
    // savePlan writes the list and its length in one MULTI, so a matching pair is a whole plan.
    const [total, batches] = await Promise.all([
      this.redis.hget(this.keys.hash(id), 'batches_total'),
      this.redis.lrange(this.keys.plan(id), 0, -1),
    ]);
    if (total === null || batches.length !== Number(total)) return undefined;
    return batches.map((b) => JSON.parse(b) as string[]);
  }

  async markPlanned(id: string): Promise<boolean> {
    const finished = await this.runScript<number>(
      'fcsRunMarkPlanned',
      ...this.runKeys(id),
      id,
      new Date().toISOString(),
      FINISHED_PLAN_TTL_SECONDS,
    );
    return finished === 1;
  }

  async recordBatch(id: string, batchNo: number, outcome: 'done' | 'failed', result: BatchResult): Promise<boolean> {
    const outcomeCode = await this.runScript<number>(
      'fcsRunRecordBatch',
      ...this.runKeys(id),
      id,
      batchNo,
      outcome,
      new Date().toISOString(),
      CURRENT_TTL_SECONDS,
      FINISHED_PLAN_TTL_SECONDS,
      ...batchIncrements(result),
    );
    return outcomeCode === 1;
  }

  async fail(id: string, error: string): Promise<void> {
    await this.runScript('fcsRunFail', this.keys.hash(id), this.keys.current, id, new Date().toISOString(), error.slice(0, 500));
  }

  async current(): Promise<RunSummary | undefined> {
    const id = await this.redis.get(this.keys.current);
    return id ? this.get(id) : undefined;
  }

  async list(limit = 10): Promise<RunSummary[]> {
    const ids = await this.redis.zrevrange(this.keys.index, 0, limit - 1);
    const runs = await Promise.all(ids.map(this.get));
    return runs.filter((r): r is RunSummary => r !== undefined);
  }

  private async trimHistory(): Promise<void> {
    const old = await this.redis.zrevrange(this.keys.index, HISTORY, -1);
    if (old.length === 0) return;
    await this.redis.unlink(...old.flatMap((id) => [this.keys.hash(id), this.keys.batches(id), this.keys.plan(id)]));
    await this.redis.zrem(this.keys.index, ...old);
  }
}

/** Run summaries in Redis under `<prefix>:runs*` (prefix defaults to the BullMQ prefix). */
export function createRunStore(options: { redis: Redis; prefix: string }): RunStore {
  return new RedisRunStore(options);
}
