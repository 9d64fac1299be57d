// Waiting for the worker's asynchronous outcomes (a run, a job) in its integration tests.
import type { RunStore, RunSummary } from '@fragrance/jobs';
import { waitFor } from '@fragrance/testkit';
import { Job } from 'bullmq';

const FINISHED: ReadonlySet<RunSummary['status']> = new Set(['completed', 'completed_with_failures', 'failed']);

/** The run's summary once it has finished (completed, with failures, or failed). */
export async function waitForRun(runs: RunStore, runId: string, timeoutMs = 60_000): Promise<RunSummary> {
  let last: RunSummary | undefined;
  try {
    return await waitFor(
      async () => {
        last = await runs.get(runId);
        return last && FINISHED.has(last.status) ? last : undefined;
      },
      { timeoutMs, intervalMs: 100 },
    );
  } catch (error) {
    throw new Error(`run ${runId} did not finish in ${timeoutMs} ms: ${JSON.stringify(last)}`, { cause: error });
  }
}

/** The job once it has finished: it returned a value or failed (`failedReason` says why). */
export async function waitForJob(queue: Parameters<typeof Job.fromId>[0], jobId: string, timeoutMs = 60_000): Promise<Job> {
  return waitFor(
    async () => {
      const job = await Job.fromId(queue, jobId);
      return job?.failedReason || job?.returnvalue ? job : undefined;
    },
    { timeoutMs, intervalMs: 100, description: `job ${jobId} to finish` },
  );
}
