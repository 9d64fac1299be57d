import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@fragrance/http';
import {
  ENRICHER_NAMES,
  EnrichBatchJobData,
  EnrichRunJobData,
  IngestJobData,
  JOB_NAMES,
  requestEnrichmentRun,
  runIdForJob,
  type BatchResult,
  type RunStore,
} from '@fragrance/jobs';
import { bumpCatalogueGeneration, type GenerationStore } from '@fragrance/response-cache';
import { ingestCatalogue, SwapRefusedError } from '@fragrance/search';
import { DelayedError, UnrecoverableError, WaitingError, type Job, type Queue } from 'bullmq';
import { processBatch, type BatchDeps } from './enrich/batch.ts';
import { planRun, type PlanDeps } from './enrich/plan.ts';
import { batchDuration, recordBatchRows, recordRunFinished } from './metrics.ts';
import type { SimilarRefresher } from './similar.ts';

/** How long an ingest-triggered run waits before trying again while another run is in progress. */
const BUSY_RETRY_MS = 30_000;

const failedResult = (rows: number): BatchResult => ({
  seen: rows,
  changed: 0,
  unchanged: 0,
  failed: rows,
  conflicts: 0,
  per_enricher: Object.fromEntries(ENRICHER_NAMES.map((n) => [n, { changed: 0, unchanged: 0, failed: rows }])),
});

/** True when this failure uses up the job's last attempt (BullMQ counts attemptsMade after it fails). */
const isLastAttempt = (job: Job, error: unknown): boolean =>
  error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/** What happens once a run's last batch is recorded (the worker merges a fragmented index: enrich/compact.ts). */
export type RunFinishedHook = () => Promise<void>;

/** The run this worker just finished: counted by its final status, then the hook. */
async function finishRun(runs: RunStore, id: string, onRunFinished: RunFinishedHook | undefined): Promise<void> {
  const run = await runs.get(id);
  if (run) recordRunFinished(run.status);
  await onRunFinished?.();
}

/** Records a batch that will not be tried again, so the run still finishes (counted once per batch). */
export async function recordFailedBatch(runs: RunStore, job: Job, logger: Logger, onRunFinished?: RunFinishedHook): Promise<void> {
  const data = EnrichBatchJobData.safeParse(job.data);
  if (!data.success) return;
  const finished = await runs.recordBatch(data.data.run_id, data.data.batch_no, 'failed', failedResult(data.data.ids.length));
  if (finished) await finishRun(runs, data.data.run_id, onRunFinished);
  logger.error({ run: data.data.run_id, batch: data.data.batch_no, job: job.id, reason: job.failedReason }, 'batch failed for good');
}

/**
 * The enrichment queue's processor: plans runs and enriches batches. An abort (shutdown took
 * too long) hands the job back to the queue for another worker instead of failing it.
 */
export function enrichmentProcessor(deps: {
  plan: PlanDeps;
  batch: BatchDeps;
  runs: RunStore;
  logger: Logger;
  onRunFinished?: RunFinishedHook;
  /** Asked for a pass after the run's writes made the materialised similar lists stale. */
  similar?: SimilarRefresher | undefined;
}) {
  return async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    try {
      if (job.name === JOB_NAMES.enrichRun) {
        const data = EnrichRunJobData.parse(job.data ?? {});
        const outcome = await planRun(deps.plan, { id: job.id ?? '', timestamp: job.timestamp, data }, signal);
        if (outcome.skipped && data.trigger === 'ingest' && token) {
          // The fresh index needs enriching once the current run is done: wait, do not drop it.
          await job.moveToDelayed(Date.now() + BUSY_RETRY_MS, token);
          throw new DelayedError();
        }
        return outcome;
      }
      if (job.name === JOB_NAMES.enrichBatch) {
        const parsed = EnrichBatchJobData.safeParse(job.data);
        if (!parsed.success) throw new UnrecoverableError(`invalid batch payload: ${parsed.error.issues[0]?.message ?? ''}`);
        const timer = batchDuration.startTimer();
        let result;
        try {
          result = await processBatch(deps.batch, parsed.data, signal);
        } catch (error) {
          timer({ outcome: 'failed' });
          throw error;
        }
        timer({ outcome: 'done' });
        recordBatchRows(result);
        if (await deps.runs.recordBatch(parsed.data.run_id, parsed.data.batch_no, 'done', result)) {
          await finishRun(deps.runs, parsed.data.run_id, deps.onRunFinished);
          // The run's writes made every materialised similar list stale: compute them again.
          deps.similar?.request('enrichment run finished');
        }
        return result;
      }
      throw new UnrecoverableError(`unknown job name ${job.name}`);
    } catch (error) {
      if (error instanceof DelayedError || error instanceof WaitingError) throw error;
      if (signal?.aborted && token) {
        deps.logger.info({ job: job.id, name: job.name }, 'handing the job back to the queue');
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (job.name === JOB_NAMES.enrichRun && isLastAttempt(job, error)) {
        // Planning gave up: the run is failed as a whole, and the next one may start.
        await deps.runs.fail(runIdForJob(job.id ?? ''), error instanceof Error ? error.message : String(error));
        recordRunFinished('failed');
        deps.logger.error({ job: job.id, err: error }, 'enrichment run failed while planning');
      } else if (job.name === JOB_NAMES.enrichBatch && isLastAttempt(job, error)) {
        job.failedReason = error instanceof Error ? error.message : String(error);
        await recordFailedBatch(deps.runs, job, deps.logger, deps.onRunFinished);
        deps.similar?.request('enrichment batch failed');
      } else {
        deps.logger.warn(
          { job: job.id, name: job.name, attempt: job.attemptsMade + 1, err: error },
          'job failed; BullMQ retries it with backoff',
        );
      }
      throw error;
    }
  };
}

/** The ingest queue's processor: rebuild the index from a file, swap the alias, then enrich. */
export function ingestProcessor(deps: {
  elasticsearch: Client;
  alias: string;
  enrichmentQueue: Queue;
  logger: Logger;
  /** Where the catalogue generation is bumped after the swap, so response caches drop the old index at once. */
  generation?: { redis: GenerationStore; prefix: string };
  /** Asked for a pass over the new index. */
  similar?: SimilarRefresher | undefined;
}) {
  return async (job: Job): Promise<unknown> => {
    const data = IngestJobData.safeParse(job.data);
    if (!data.success) throw new UnrecoverableError(`invalid ingest payload: ${data.error.issues[0]?.message ?? ''}`);
    const { generation } = deps;
    const result = await ingestCatalogue({
      client: deps.elasticsearch,
      alias: deps.alias,
      file: data.data.file,
      // Enrichment results of unchanged rows survive, so enrich_after only works on changed rows.
      carryForward: true,
      // The operator CLI's guard (packages/search safety.ts): no swap to a much smaller catalogue.
      guard: { allowShrink: data.data.allow_shrink },
      ...(generation
        ? {
            afterSwap: () => bumpCatalogueGeneration(generation.redis, { prefix: generation.prefix, alias: deps.alias }),
            onAfterSwapError: (error: unknown) =>
              deps.logger.warn(
                { err: error },
                'cannot bump the catalogue generation after the swap; caches see it within their check interval',
              ),
          }
        : {}),
      onProgress: (p) => void job.updateProgress({ read: p.read, indexed: p.indexed, skipped: p.skipped, total: p.total ?? null }),
    }).catch((error: unknown) => {
      // The same file would be refused again: fail the job at once instead of retrying it.
      if (error instanceof SwapRefusedError) throw new UnrecoverableError(`${error.message} (job option allow_shrink)`);
      throw error;
    });
    deps.logger.info(
      { index: result.index, indexed: result.indexed, skipped: result.skipped.length, seconds: result.seconds },
      'catalogue ingested',
    );
    // A new index has no similar lists yet (its run, if any, asks again once it has written).
    deps.similar?.request('catalogue ingested');
    const run = data.data.enrich_after ? await requestEnrichmentRun(deps.enrichmentQueue, { full: false, trigger: 'ingest' }) : undefined;
    return { index: result.index, indexed: result.indexed, skipped: result.skipped.length, enrichment_run: run?.runId ?? null };
  };
}
