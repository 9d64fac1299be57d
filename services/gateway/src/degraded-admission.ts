import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import {
  createLocalAdmission,
  openAdmissionJournal,
  type AdmissionJournal,
  type Clock,
  type DegradedPeriod,
  type LocalAdmission,
} from '@fragrance/api-keys';
import type { Logger } from '@fragrance/http';
import type { GatewayConfig } from './config.ts';
import type { HealthCheck } from './health.ts';
import { degradedPeriods, degradedSeconds, observeDegradedAdmission, replayedAdmissions } from './metrics.ts';

/** How often a left-behind or unacknowledged journal is replayed, and a quiet degraded period probed. */
const RETRY_MS = 1_000;

export interface DegradedAdmission {
  local: LocalAdmission;
  journal: AdmissionJournal;
  /** Replays the journal now (tests; the timer does it every second while there is a backlog). */
  replay: () => Promise<void>;
  close: () => void;
}

/** The journal file of one instance: its own, so a restart of the same instance replays what it left. */
export const journalFileOf = (config: Pick<GatewayConfig, 'ADMISSION_JOURNAL_DIR' | 'PORT'>): string =>
  join(resolve(config.ADMISSION_JOURNAL_DIR), `admissions-${config.PORT}.jsonl`);

/**
 * Admission while Redis cannot answer (docs/operations.md#degraded-admission): the local
 * admission the admitter falls back to, its journal (a journal left by a crashed process is
 * replayed as soon as Redis answers), one log line per degraded period and the metrics.
 * Undefined when DEGRADED_ADMISSION_MAX_AGE_MS is 0.
 */
export function startDegradedAdmission({
  config,
  redis,
  logger,
  clock,
}: {
  config: GatewayConfig;
  redis: Redis;
  logger: Logger;
  clock?: Clock;
}): DegradedAdmission | undefined {
  if (config.DEGRADED_ADMISSION_MAX_AGE_MS === 0) return undefined;
  const file = journalFileOf(config);
  let journal: AdmissionJournal;
  try {
    journal = openAdmissionJournal({ redis, prefix: config.REDIS_PREFIX, file, fsyncIntervalMs: config.ADMISSION_JOURNAL_FSYNC_MS });
  } catch (error) {
    throw new Error(`ADMISSION_JOURNAL_DIR: cannot open the admission journal ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (journal.backlog() > 0)
    logger.warn({ backlog: journal.backlog(), file }, 'admission journal left behind: replaying it once Redis answers');

  let replayedInPeriod = 0;
  const replay = async () => {
    const { replayed, acknowledged } = await journal.replay();
    replayedInPeriod += acknowledged;
    if (replayed > 0) replayedAdmissions.inc({ result: 'counted' }, replayed);
    if (acknowledged > replayed) replayedAdmissions.inc({ result: 'already_counted' }, acknowledged - replayed);
  };
  const ended = (period: DegradedPeriod) => {
    degradedPeriods.inc();
    degradedSeconds.inc(period.durationMs / 1000);
    void replay()
      .catch((error: unknown) => logger.warn({ err: error }, 'admission journal replay failed; retrying'))
      .finally(() => {
        logger.warn(
          {
            degraded_ms: period.durationMs,
            admitted_locally: period.admittedLocally,
            refused: period.refused,
            replayed: replayedInPeriod,
            backlog: journal.backlog(),
          },
          'degraded admission ended: Redis answers again',
        );
        replayedInPeriod = 0;
      });
  };
  const local = createLocalAdmission({
    redis,
    prefix: config.REDIS_PREFIX,
    timeZone: config.QUOTA_TIMEZONE,
    journal,
    maxAgeMs: config.DEGRADED_ADMISSION_MAX_AGE_MS,
    bucketDefaults: { capacity: config.BURST_CAPACITY },
    visitorDefaults: { capacity: config.VISITOR_BURST_CAPACITY, maxLimit: config.PUBLISHABLE_MAX_LIMIT },
    ...(clock ? { clock } : {}),
    onRecovered: ended,
  });
  observeDegradedAdmission({ degraded: () => local.degradedSince() !== undefined, backlog: () => journal.backlog() });

  // A quiet period ends on a reply to PING; a backlog (left behind, or a failed replay) is retried.
  const timer = setInterval(() => {
    if (local.degradedSince() !== undefined) {
      redis.ping().then(
        () => local.recovered(),
        () => undefined,
      );
    } else if (journal.backlog() > 0) {
      replay().catch(() => undefined);
    }
  }, RETRY_MS);
  timer.unref();
  return {
    local,
    journal,
    replay,
    close: () => {
      clearInterval(timer);
      journal.close();
    },
  };
}

/**
 * Readiness while Redis is away: ready as long as the local admission can still admit (Redis
 * decided on some key within DEGRADED_ADMISSION_MAX_AGE_MS), so a load balancer keeps sending
 * known keys' requests instead of taking every gateway out at once.
 */
export const degradedReadiness =
  (redisCheck: HealthCheck, degraded: DegradedAdmission, maxAgeMs: number, clock: Clock = Date.now): HealthCheck =>
  async () => {
    try {
      await redisCheck();
    } catch (error) {
      const last = degraded.local.lastSightingAt();
      if (last === undefined || clock() - last > maxAgeMs) throw error;
    }
  };
