export { batchJobId, DEFAULT_JOBS_PREFIX, ENRICHER_NAMES, JOB_NAMES, QUEUE_NAMES, runIdForJob } from './names.ts';
export { BatchResult, EnrichBatchJobData, EnrichRunJobData, IngestJobData } from './payloads.ts';
export { createRunStore, RunStatus, RunSummary, type RunStore } from './run-store.ts';
export {
  batchJobOptions,
  enrichmentQueue,
  failedBatches,
  ingestQueue,
  nightlySchedule,
  registerNightlySchedule,
  requestEnrichmentRun,
  requestIngest,
} from './queues.ts';
