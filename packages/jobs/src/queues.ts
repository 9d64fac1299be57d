import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOB_NAMES, NIGHTLY_SCHEDULER_ID, QUEUE_NAMES, runIdForJob } from './names.ts';
import { EnrichBatchJobData, type EnrichRunJobData, type IngestJobInput, type RunTrigger } from './payloads.ts';

export interface QueueConnection {
  /** An ioredis connection; BullMQ duplicates it where it needs a blocking one. */
  connection: Redis;
  /** BullMQ key prefix (`fcs:jobs`; tests pass their own). */
  prefix: string;
}

/** Finished jobs are kept a while for `enrich status`, then evicted so Redis does not grow nightly. */
const KEEP_COMPLETED = { age: 7 * 24 * 3600, count: 5_000 };
const KEEP_FAILED = { age: 30 * 24 * 3600, count: 5_000 };

export function enrichmentQueue({ connection, prefix }: QueueConnection): Queue {
  return new Queue(QUEUE_NAMES.enrichment, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: KEEP_COMPLETED, removeOnFail: KEEP_FAILED },
  });
}

export function ingestQueue({ connection, prefix }: QueueConnection): Queue {
  return new Queue(QUEUE_NAMES.ingest, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: KEEP_COMPLETED, removeOnFail: KEEP_FAILED },
  });
}

/** Retry policy of a batch: `attempts` tries with exponential backoff starting at `backoffMs`. */
export function batchJobOptions(attempts: number, backoffMs: number): JobsOptions {
  return { attempts, backoff: { type: 'exponential', delay: backoffMs } };
}

/** Queues a run now (`enrich run`). Returns the run id the worker will use for it. */
export async function requestEnrichmentRun(
  queue: Queue,
  options: { full: boolean; trigger?: RunTrigger },
): Promise<{ jobId: string; runId: string }> {
  const data: EnrichRunJobData = { full: options.full, trigger: options.trigger ?? 'manual' };
  // A planning job that fails is retried a few times; its run id stays the same.
  const job = await queue.add(JOB_NAMES.enrichRun, data, { attempts: 3, backoff: { type: 'exponential', delay: 2_000 } });
  if (!job.id) throw new Error('BullMQ returned a job without an id');
  return { jobId: job.id, runId: runIdForJob(job.id) };
}

export async function requestIngest(queue: Queue, data: IngestJobInput): Promise<string> {
  const job = await queue.add(JOB_NAMES.ingest, data, { attempts: 2, backoff: { type: 'exponential', delay: 5_000 } });
  if (!job.id) throw new Error('BullMQ returned a job without an id');
  return job.id;
}

/**
 * Upserts the nightly Job Scheduler entry. Every worker calls this at start; the fixed id makes
 * it one entry however many workers start, and changing cron or timezone updates it in place.
 */
export async function registerNightlySchedule(queue: Queue, schedule: { cron: string; timezone: string }): Promise<void> {
  const data: EnrichRunJobData = { full: false, trigger: 'schedule' };
  await queue.upsertJobScheduler(
    NIGHTLY_SCHEDULER_ID,
    { pattern: schedule.cron, tz: schedule.timezone },
    { name: JOB_NAMES.enrichRun, data, opts: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 } } },
  );
}

export interface NightlySchedule {
  cron: string | undefined;
  timezone: string | undefined;
  next: string | undefined;
}

export async function nightlySchedule(queue: Queue): Promise<NightlySchedule | undefined> {
  const scheduler = await queue.getJobScheduler(NIGHTLY_SCHEDULER_ID);
  if (!scheduler) return undefined;
  return {
    cron: scheduler.pattern,
    timezone: scheduler.tz,
    next: scheduler.next === undefined ? undefined : new Date(scheduler.next).toISOString(),
  };
}

export interface FailedBatch {
  job_id: string;
  run_id: string;
  batch_no: number;
  rows: number;
  attempts: number;
  reason: string;
  failed_at: string | null;
}

/** Batches that used up their attempts, most recent first (BullMQ's failed set). */
export async function failedBatches(queue: Queue, limit = 20): Promise<FailedBatch[]> {
  const jobs = await queue.getFailed(0, Math.max(0, limit * 4 - 1));
  const out: FailedBatch[] = [];
  for (const job of jobs) {
    if (job.name !== JOB_NAMES.enrichBatch) continue;
    const data = EnrichBatchJobData.safeParse(job.data);
    if (!data.success) continue;
    out.push({
      job_id: job.id ?? '',
      run_id: data.data.run_id,
      batch_no: data.data.batch_no,
      rows: data.data.ids.length,
      attempts: job.attemptsMade,
      reason: job.failedReason,
      failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    });
    if (out.length >= limit) break;
  }
  return out;
}
