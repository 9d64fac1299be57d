export {
  batchJobId,
  DEFAULT_JOBS_PREFIX,
  ENRICHER_NAMES,
  JOB_NAMES,
  NIGHTLY_SCHEDULER_ID,
  QUEUE_NAMES,
  runIdForJob,
  type EnricherName,
} from './names.ts';
export {
  BatchResult,
  EnrichBatchJobData,
  EnricherCounts,
  EnrichRunJobData,
  IngestJobData,
  type IngestJobInput,
  RunTrigger,
} from './payloads.ts';
export { createRunStore, RunStatus, RunSummary, type BeginResult, type RunPlan, type RunStore } from './run-store.ts';
export {
  batchJobOptions,
  enrichmentQueue,
  failedBatches,
  ingestQueue,
  nightlySchedule,
  registerNightlySchedule,
  requestEnrichmentRun,
  requestIngest,
  type FailedBatch,
  type NightlySchedule,
  type QueueConnection,
} from './queues.ts';
