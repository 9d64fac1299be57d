/** Default BullMQ key prefix; every queue key lives under `fcs:jobs:*` (docs/architecture.md). */
export const DEFAULT_JOBS_PREFIX = 'fcs:jobs';

/** Queue names. The ingest queue rebuilds the index; the enrichment queue runs and batches. */
export const QUEUE_NAMES = { ingest: 'catalogue-ingest', enrichment: 'enrichment' } as const;

/** Job names inside the queues. */
export const JOB_NAMES = {
  ingest: 'ingest',
  /** Plans one enrichment run: selects rows and fans out batches. */
  enrichRun: 'enrich-run',
  enrichBatch: 'enrich-batch',
} as const;

/** The one Job Scheduler entry that starts the nightly run (upserted by every worker). */
export const NIGHTLY_SCHEDULER_ID = 'nightly-enrichment';

/** The enrichers, in the order a batch applies them. */
export const ENRICHER_NAMES = ['community_taxonomy', 'operator_curated', 'au_retailer_scrape', 'ai_enriched'] as const;

/** A run's id is derived from its planning job's id, so a redone planning job finds the same run. */
export function runIdForJob(jobId: string): string {
  return `run-${jobId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Batch job ids are deterministic: re-planning a run never enqueues a batch twice. */
export function batchJobId(runId: string, batchNo: number): string {
  return `${runId}-b${String(batchNo).padStart(5, '0')}`;
}
