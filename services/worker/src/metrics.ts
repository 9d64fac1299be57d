import type { Queue } from 'bullmq';
import type { BatchResult, RunStatus } from '@fragrance/jobs';
import { Counter, Gauge, Histogram, metricsRegistry } from '@fragrance/metrics';

/** The worker's own metrics (docs/observability.md). */
export const batchDuration = new Histogram({
  name: 'worker_enrichment_batch_duration_seconds',
  help: 'Time to enrich one batch, by outcome (done, failed).',
  labelNames: ['outcome'] as const,
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
});

export const enrichedRows = new Counter({
  name: 'worker_enrichment_rows_total',
  help: 'Rows seen per enricher by result (changed, unchanged, failed).',
  labelNames: ['enricher', 'result'] as const,
});

export const enrichmentRuns = new Counter({
  name: 'worker_enrichment_runs_total',
  help: 'Enrichment runs this worker finished, by outcome (completed, completed_with_failures, failed).',
  labelNames: ['outcome'] as const,
});

export const lastRunFinished = new Gauge({
  name: 'worker_enrichment_last_run_finished_timestamp_seconds',
  help: 'When the last run this worker finished ended (Unix seconds), labelled with its outcome.',
  labelNames: ['outcome'] as const,
});

/** Counts a batch's per-enricher rows. */
export function recordBatchRows(result: BatchResult): void {
  for (const [enricher, counts] of Object.entries(result.per_enricher)) {
    for (const outcome of ['changed', 'unchanged', 'failed'] as const) {
      if (counts[outcome] > 0) enrichedRows.inc({ enricher, result: outcome }, counts[outcome]);
    }
  }
}

/** A finished run: counted, and the only series of the last-run gauge. */
export function recordRunFinished(outcome: RunStatus): void {
  enrichmentRuns.inc({ outcome });
  lastRunFinished.reset();
  lastRunFinished.set({ outcome }, Date.now() / 1000);
}

const QUEUE_STATES = ['waiting', 'active', 'failed', 'delayed'] as const;

/** Queue depth by state, read from Redis at each scrape (one round trip per queue). */
export function observeQueues(queues: readonly Queue[]): Gauge<'queue' | 'state'> {
  // One worker per process in production; tests start several in one process, the latest wins.
  metricsRegistry.removeSingleMetric('worker_queue_jobs');
  return new Gauge({
    name: 'worker_queue_jobs',
    help: 'Jobs in each queue by state (waiting, active, failed, delayed), read at scrape time.',
    labelNames: ['queue', 'state'] as const,
    async collect() {
      const counts = await Promise.all(
        queues.map(async (queue) => ({ queue: queue.name, counts: await queue.getJobCounts(...QUEUE_STATES) })),
      );
      for (const { queue, counts: byState } of counts) {
        for (const state of QUEUE_STATES) this.set({ queue, state }, byState[state] ?? 0);
      }
    },
  });
}
