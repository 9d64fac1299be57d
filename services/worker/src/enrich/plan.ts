import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@fragrance/http';
import {
  batchJobId,
  batchJobOptions,
  JOB_NAMES,
  runIdForJob,
  type EnrichBatchJobData,
  type EnrichRunJobData,
  type RunStore,
} from '@fragrance/jobs';
import { matchKey } from '@fragrance/vocabulary';
import type { Queue } from 'bullmq';
import { scanCatalogue } from '../catalogue.ts';
import { unmatchedOffers, type FeedIndex } from '../feed.ts';
import { needsWork, toBatches } from './select.ts';

export interface PlanDeps {
  elasticsearch: Client;
  alias: string;
  runs: RunStore;
  queue: Queue;
  feed: () => Promise<FeedIndex | undefined>;
  auStaleMs: number;
  batchSize: number;
  batchAttempts: number;
  batchBackoffMs: number;
  logger: Logger;
  /** Model key of the worker's embedder: rows without a vector of it are selected. Absent: vectors are not looked at. */
  embeddingModel?: string | undefined;
}

export interface PlanOutcome {
  run_id: string;
  /** Set when another run was in progress and this one did not start. */
  skipped?: string;
  rows: number;
  batches: number;
}

const ENQUEUE_CHUNK = 500;

/**
 * Plans one run: selects the rows needing work, stores the plan, fans out one batch job per
 * `batchSize` rows. The run id and `as_of` come from the planning job itself, and the stored
 * plan is reused, so a planning job redone after a crash enqueues the very same batches (their
 * job ids are deterministic, BullMQ adds each once).
 */
export async function planRun(
  deps: PlanDeps,
  job: { id: string; timestamp: number; data: EnrichRunJobData },
  signal?: AbortSignal,
): Promise<PlanOutcome> {
  const runId = runIdForJob(job.id);
  const begun = await deps.runs.begin({
    id: runId,
    trigger: job.data.trigger,
    full: job.data.full,
    as_of: new Date(job.timestamp).toISOString(),
  });
  if (!begun.started) {
    deps.logger.warn({ run: runId, current: begun.current }, 'another enrichment run is in progress; this one is skipped');
    return { run_id: runId, skipped: `run ${begun.current} in progress`, rows: 0, batches: 0 };
  }
  const { as_of: asOf, full } = begun.summary;

  let batches = await deps.runs.loadPlan(runId);
  if (!batches) {
    const feed = await deps.feed();
    if (!feed) deps.logger.warn({ run: runId }, 'AU retailer feed file not found; AU availability is left as it is');
    const selected: string[] = [];
    const keys = new Set<string>();
    const scanned = await scanCatalogue(
      deps.elasticsearch,
      deps.alias,
      (rows) => {
        for (const row of rows) {
          if (feed) keys.add(matchKey(row.brand, row.name, row.concentration));
          if (needsWork(row, { asOf, auStaleMs: deps.auStaleMs, full, embeddingModel: deps.embeddingModel })) selected.push(row.id);
        }
      },
      signal ? { signal } : {},
    );
    const unmatched = feed ? unmatchedOffers(feed, keys) : { count: 0, sample: [] };
    batches = toBatches(selected, deps.batchSize);
    await deps.runs.savePlan(runId, {
      rows_total: selected.length,
      batches,
      au_unmatched_offers: unmatched.count,
      au_unmatched_sample: unmatched.sample,
    });
    deps.logger.info(
      { run: runId, scanned, selected: selected.length, batches: batches.length, au_unmatched_offers: unmatched.count },
      'run planned',
    );
  }

  const options = batchJobOptions(deps.batchAttempts, deps.batchBackoffMs);
  for (let start = 0; start < batches.length; start += ENQUEUE_CHUNK) {
    signal?.throwIfAborted();
    await deps.queue.addBulk(
      batches.slice(start, start + ENQUEUE_CHUNK).map((ids, i) => {
        const batchNo = start + i;
        const data: EnrichBatchJobData = { run_id: runId, batch_no: batchNo, full, as_of: asOf, ids };
        return { name: JOB_NAMES.enrichBatch, data, opts: { ...options, jobId: batchJobId(runId, batchNo) } };
      }),
    );
  }
  const finished = await deps.runs.markPlanned(runId);
  if (finished) deps.logger.info({ run: runId }, 'run finished (nothing to do)');
  return { run_id: runId, rows: batches.reduce((n, b) => n + b.length, 0), batches: batches.length };
}
