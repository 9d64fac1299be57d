import pWaitFor from 'p-wait-for';
import { z } from 'zod';
import { parseConfig, redisConnectionFields, redisPrefix } from '@fragrance/config';
import {
  createRunStore,
  DEFAULT_JOBS_PREFIX,
  enrichmentQueue,
  failedBatches,
  nightlySchedule,
  requestEnrichmentRun,
  type RunStore,
  type RunSummary,
} from '@fragrance/jobs';
import { Job, type Queue } from 'bullmq';
import { parseOptions, wholeNumberOption, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { progressReporter } from '../progress.ts';
import { withRedis } from '../redis.ts';

/** What `enrich` commands read from the environment (the same names the worker uses). */
export const EnrichConfig = z.object({
  ...redisConnectionFields(),
  JOBS_PREFIX: redisPrefix(DEFAULT_JOBS_PREFIX),
});

interface Session {
  queue: Queue;
  runs: RunStore;
}

/** Opens Redis (failing fast when it is down), the enrichment queue and the run store; always closes them. */
async function withSession<T>(ctx: CommandContext, use: (session: Session) => Promise<T>): Promise<T> {
  const config = parseConfig(EnrichConfig, ctx.env);
  return withRedis(config, async (redis) => {
    const queue = enrichmentQueue({ connection: redis, prefix: config.JOBS_PREFIX });
    try {
      return await use({ queue, runs: createRunStore({ redis, prefix: config.JOBS_PREFIX }) });
    } finally {
      await queue.close().catch(() => undefined);
    }
  });
}

const seconds = (run: RunSummary): string => {
  const end = run.finished_at ? Date.parse(run.finished_at) : Date.now();
  return `${((end - Date.parse(run.started_at)) / 1000).toFixed(1)} s`;
};

/** A run summary as text: what `enrich run` prints at the end and `enrich status` per run. */
export function formatRun(run: RunSummary): string {
  const lines = [
    `run ${run.id} (${run.trigger}${run.full ? ', full' : ''}): ${run.status.replaceAll('_', ' ')}`,
    `  started ${run.started_at}${run.finished_at ? `, finished ${run.finished_at}` : ''} (${seconds(run)})`,
    `  rows: ${run.rows_total} selected, ${run.rows_seen} seen, ${run.changed} changed, ${run.unchanged} unchanged, ${run.failed} failed` +
      (run.conflicts > 0 ? `, ${run.conflicts} conflicts re-applied` : ''),
    `  batches: ${run.batches_done}/${run.batches_total} done, ${run.batches_failed} failed`,
  ];
  if (run.error) lines.push(`  error: ${run.error}`);
  const enrichers = Object.entries(run.per_enricher);
  if (enrichers.length > 0) {
    lines.push('  per enricher:');
    for (const [name, c] of enrichers)
      lines.push(`    ${name.padEnd(20)} changed ${c.changed}, unchanged ${c.unchanged}, failed ${c.failed}`);
  }
  if (run.au_unmatched_offers > 0) {
    lines.push(`  AU feed offers matching no catalogue row: ${run.au_unmatched_offers}`);
    for (const sample of run.au_unmatched_sample.slice(0, 5)) lines.push(`    e.g. ${sample}`);
  }
  return lines.join('\n');
}

const finished = (run: RunSummary | undefined) =>
  run?.status === 'completed' || run?.status === 'completed_with_failures' || run?.status === 'failed';
/** What is left of `deadline` as p-wait-for's timeout, failing with `message`. */
const until = (deadline: number, message: string) => ({ milliseconds: Math.max(deadline - Date.now(), 0), message: new Error(message) });

/**
 * Waits for the worker to start the run. A planning job that found another run in progress
 * completes with `skipped`: we then follow that run instead.
 */
async function runToFollow(session: Session, jobId: string, runId: string, deadline: number): Promise<string> {
  const started = async (): Promise<string | undefined> => {
    if (await session.runs.get(runId)) return runId;
    const job = await Job.fromId(session.queue, jobId);
    if (!job?.finishedOn) return undefined;
    if (job.failedReason) throw new Error(`the run could not start: ${job.failedReason}`);
    return (await session.runs.current())?.id ?? ((await session.runs.get(runId)) ? runId : undefined);
  };
  return pWaitFor(
    async () => {
      const id = await started();
      return id !== undefined && pWaitFor.resolveWith(id);
    },
    {
      interval: 300,
      timeout: until(deadline, 'no worker picked the run up in time (is the worker running? `npm start` runs one)'),
    },
  );
}

const run: Command = {
  summary: 'Start an enrichment run now and follow its progress',
  usage: 'enrich run [--full] [--detach] [--timeout-minutes 60]',
  async run(ctx) {
    const { values } = parseOptions(ctx.argv, {
      full: { type: 'boolean', default: false },
      detach: { type: 'boolean', default: false },
      'timeout-minutes': { type: 'string' },
    });
    const timeoutMinutes = wholeNumberOption('--timeout-minutes', values['timeout-minutes'], 1, 99_999) ?? 60;
    const deadline = Date.now() + timeoutMinutes * 60_000;
    await withSession(ctx, async (session) => {
      const workers = await session.queue.getWorkers();
      if (workers.length === 0) ctx.stderr.write('warning: no worker is connected; the run starts when one does (npm start runs one)\n');
      const requested = await requestEnrichmentRun(session.queue, { full: values.full });
      ctx.stdout.write(`queued run ${requested.runId}${values.full ? ' (full)' : ''}\n`);
      if (values.detach) return;
      const runId = await runToFollow(session, requested.jobId, requested.runId, deadline);
      if (runId !== requested.runId) ctx.stdout.write(`run ${runId} was already in progress; following it instead\n`);
      const progress = progressReporter(ctx, 'enrich', 'rows', ['changed', 'failed']);
      let summary: RunSummary | undefined;
      try {
        await pWaitFor(
          async () => {
            summary = await session.runs.get(runId);
            if (summary)
              progress.update({
                done: summary.rows_seen,
                total: summary.rows_total,
                counts: { changed: summary.changed, failed: summary.failed },
              });
            return finished(summary);
          },
          {
            interval: 500,
            timeout: until(deadline, `run ${runId} still in progress after the timeout; follow it with: npm run ops -- enrich status`),
          },
        );
      } finally {
        progress.stop();
      }
      if (summary) ctx.stdout.write(formatRun(summary) + '\n');
      if (summary?.status === 'completed_with_failures') ctx.stdout.write('failed batches: npm run ops -- enrich status\n');
      if (summary?.status === 'failed') throw new Error(`run ${summary.id} failed: ${summary.error ?? 'unknown error'}`);
    });
  },
};

const status: Command = {
  summary: 'Show the current and last enrichment runs, failed batches and the nightly schedule',
  usage: 'enrich status [--runs 3] [--json]',
  async run(ctx) {
    const { values } = parseOptions(ctx.argv, { runs: { type: 'string' }, json: { type: 'boolean', default: false } });
    const limit = wholeNumberOption('--runs', values.runs, 1, 50) ?? 3;
    await withSession(ctx, async (session) => {
      const [current, recent, failed, schedule, workers, counts] = await Promise.all([
        session.runs.current(),
        session.runs.list(limit + 1),
        failedBatches(session.queue, 20),
        nightlySchedule(session.queue),
        session.queue.getWorkers(),
        session.queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
      ]);
      const last = recent.filter((r) => r.id !== current?.id && finished(r)).slice(0, limit);
      if (values.json) {
        ctx.stdout.write(
          JSON.stringify(
            { current: current ?? null, last, failed_batches: failed, schedule: schedule ?? null, workers: workers.length, jobs: counts },
            null,
            2,
          ) + '\n',
        );
        return;
      }
      const out: string[] = [];
      out.push(
        schedule
          ? `nightly: "${schedule.cron}" ${schedule.timezone ?? ''}, next ${schedule.next ?? 'unknown'}`
          : 'nightly: not scheduled (no worker has registered it)',
      );
      out.push(
        `workers connected: ${workers.length}; jobs: ${counts.waiting ?? 0} waiting, ${counts.active ?? 0} active, ${counts.delayed ?? 0} delayed, ${counts.failed ?? 0} failed`,
      );
      out.push('', current ? `current ${formatRun(current)}` : 'current: no run in progress');
      out.push('', last.length > 0 ? `last runs:\n${last.map(formatRun).join('\n')}` : 'last runs: none');
      out.push('', failed.length > 0 ? 'failed batches (attempts used up):' : 'failed batches: none');
      for (const f of failed)
        out.push(
          `  ${f.job_id}  run ${f.run_id} batch ${f.batch_no} (${f.rows} rows), ${f.attempts} attempts, ${f.failed_at ?? ''}: ${f.reason}`,
        );
      ctx.stdout.write(out.join('\n') + '\n');
    });
  },
};

/** `enrich` commands: start a run now, show runs and failures. */
export const enrichGroup: CommandGroup = {
  summary: 'Nightly enrichment: run it now, see its status',
  commands: { run, status },
};
