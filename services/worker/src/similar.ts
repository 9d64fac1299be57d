import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@fragrance/http';
import { loadLuaScript, scriptCommand } from '@fragrance/redis';
import { materialiseSimilar, type MaterialiseResult } from '@fragrance/search';
import type { Redis } from 'ioredis';

const RENEW = loadLuaScript(new URL('./renew-lease-1.lua', import.meta.url));
const RELEASE = loadLuaScript(new URL('./release-lease-1.lua', import.meta.url));

/** How long a lease lives without renewal: a worker that dies mid-pass holds up the others this long at most. */
export const SIMILAR_LEASE_MS = 30_000;

/** The lease every worker sharing the Redis takes before a pass over `alias` (docs/architecture.md). */
export const similarLeaseKey = (jobsPrefix: string, alias: string): string => `${jobsPrefix}:similar:lease:${alias}`;

/** One attempt at the lease, under a random token of its own: renew and release touch it only while it is still this token's. */
export interface SimilarLease {
  readonly key: string;
  readonly token: string;
  /** SET NX PX: true when taken, false when another holder has it. */
  acquire: () => Promise<boolean>;
  /** True when extended; false when it expired or another holder has it now. */
  renew: () => Promise<boolean>;
  /** True when deleted; false when it was no longer ours (never deletes another holder's). */
  release: () => Promise<boolean>;
}

export function similarLease(redis: Redis, key: string, ttlMs: number): SimilarLease {
  const token = randomBytes(16).toString('base64url');
  const renew = scriptCommand<number>(redis, 'fcsSimilarLeaseRenew', RENEW);
  const release = scriptCommand<number>(redis, 'fcsSimilarLeaseRelease', RELEASE);
  return {
    key,
    token,
    acquire: async () => (await redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK',
    renew: async () => (await renew(key, token, ttlMs)) === 1,
    release: async () => (await release(key, token)) === 1,
  };
}

/**
 * Keeps the catalogue's materialised similar lists current (docs/search.md, "Similar"): one pass
 * at a time in the background, asked for at start, after each enrichment run and after an
 * ingest. A pass over an index whose current generation is already computed does nothing; a
 * pass cut short (stop, lost lease, restart) is taken up where it stopped by the next, here or on
 * another worker, as the lists it stored stay current; a request during a pass runs one more
 * pass after it. Answers are live meanwhile.
 *
 * One pass at a time across every worker sharing the Redis, too: a pass runs only under the
 * alias's lease, renewed while it runs, and is aborted as soon as the lease could have expired
 * or was found lost. A request while another worker holds it is kept: the refresher asks again
 * every `retryMs` until it gets the lease (its pass then usually finds the lists current).
 */
export interface SimilarRefresher {
  request: (reason: string) => void;
  /** Resolves when no pass is running, waiting for the lease, or queued. */
  idle: () => Promise<void>;
  /** Ends the running pass between two records (or the wait for the lease) and takes no more requests. */
  stop: () => Promise<void>;
}

export interface SimilarRefresherOptions {
  elasticsearch: Client;
  alias: string;
  logger: Logger;
  /** The bound of a pass: records per second (one Elasticsearch request in flight at any time). */
  ratePerSecond: number;
  /** The connection the lease is taken on. */
  redis: Redis;
  /** JOBS_PREFIX: the lease key lives under it. */
  jobsPrefix: string;
  /** Lease TTL; renewed every third of it. Default SIMILAR_LEASE_MS. */
  leaseMs?: number;
  /** Wait before asking again while another worker holds the lease or Redis is away. Default: the lease TTL. */
  retryMs?: number;
}

type PassEnd = 'done' | 'lease lost';

export function startSimilarRefresher(options: SimilarRefresherOptions): SimilarRefresher {
  const { redis, logger, leaseMs = SIMILAR_LEASE_MS } = options;
  const retryMs = options.retryMs ?? leaseMs;
  // Bounded so that a command waiting for a reconnect (the worker's queue connection never fails
  // one) cannot hold a pass or a shutdown: a third of the TTL, the renewal interval.
  const commandMs = Math.min(leaseMs / 3, 5_000);
  const key = similarLeaseKey(options.jobsPrefix, options.alias);
  const stopping = new AbortController();
  const redisState = outageLog(logger);
  let running: Promise<void> | undefined;
  let passing = false;
  let again = false;

  async function passUnderLease(lease: SimilarLease, sentAt: number, reason: string): Promise<PassEnd> {
    const lost = new AbortController();
    const keeper = keepLease({ lease, sentAt, leaseMs, commandMs, lost, logger, redisState });
    passing = true;
    try {
      await pass(options, reason, AbortSignal.any([stopping.signal, lost.signal]));
    } finally {
      passing = false;
      keeper.stop();
      // Not released (Redis away): it expires after the TTL.
      await within(lease.release(), commandMs).then(redisState.answered, redisState.failed);
    }
    return lost.signal.aborted && !stopping.signal.aborted ? 'lease lost' : 'done';
  }

  /** Takes the lease (waiting for it as long as needed) and runs one pass under it. */
  async function cycle(reason: string): Promise<void> {
    let toldWaiting = false;
    while (!stopping.signal.aborted) {
      const lease = similarLease(redis, key, leaseMs);
      const sentAt = performance.now();
      const attempt = lease.acquire();
      let acquired = false;
      try {
        acquired = await within(attempt, commandMs);
        redisState.answered();
      } catch (error) {
        redisState.failed(error);
        // A reply after the refresher gave up must not block every worker for a TTL.
        attempt.then((late) => late && lease.release()).catch(() => undefined);
      }
      if (acquired && stopping.signal.aborted) {
        await within(lease.release(), commandMs).catch(() => undefined);
        return;
      }
      if (acquired) {
        if ((await passUnderLease(lease, sentAt, reason)) === 'done') return;
      } else if (!toldWaiting && !redisState.down()) {
        toldWaiting = true;
        logger.info({ reason, retryMs }, 'similar lists: another worker holds the lease; waiting for it');
      }
      await sleep(retryMs, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  }

  function request(reason: string): void {
    if (stopping.signal.aborted) return;
    if (running) {
      // While waiting for the lease, the pass to come covers this request already.
      if (passing) again = true;
      return;
    }
    running = cycle(reason).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        request('requested during a pass');
      }
    });
  }

  async function idle(): Promise<void> {
    while (running) await running;
  }

  return {
    request,
    idle,
    stop: async () => {
      stopping.abort();
      await idle();
    },
  };
}

/** One pass; a failure is logged (answers stay live; the next run or start asks again). */
async function pass(options: SimilarRefresherOptions, reason: string, signal: AbortSignal): Promise<void> {
  const started = performance.now();
  try {
    const result: MaterialiseResult = await materialiseSimilar({
      client: options.elasticsearch,
      alias: options.alias,
      ratePerSecond: options.ratePerSecond,
      signal,
    });
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    if (result.outcome !== 'current') options.logger.info({ reason, ...result, seconds }, 'similar lists pass');
  } catch (error) {
    options.logger.warn({ err: error, reason }, 'similar lists pass failed');
  }
}

/**
 * Renews the lease every third of its TTL while a pass runs, and aborts `lost` when a renewal
 * finds it gone or taken, or when none succeeded in time: the pass stops before another worker
 * can have taken it over (the deadline counts from when the last successful command was sent).
 */
function keepLease({
  lease,
  sentAt,
  leaseMs,
  commandMs,
  lost,
  logger,
  redisState,
}: {
  lease: SimilarLease;
  sentAt: number;
  leaseMs: number;
  commandMs: number;
  lost: AbortController;
  logger: Logger;
  redisState: OutageLog;
}): { stop: () => void } {
  const margin = leaseMs / 10;
  let validUntil = sentAt + leaseMs;
  let deadline: NodeJS.Timeout | undefined;
  let renewing = false;
  const lose = (why: string) => {
    if (lost.signal.aborted) return;
    logger.warn({ key: lease.key, why }, 'similar lists lease lost; pass stopped');
    lost.abort();
  };
  const arm = () => {
    clearTimeout(deadline);
    deadline = setTimeout(() => lose('not renewed in time'), Math.max(0, validUntil - margin - performance.now()));
  };
  arm();
  const renewal = setInterval(() => {
    if (renewing || lost.signal.aborted) return;
    renewing = true;
    const sent = performance.now();
    within(lease.renew(), commandMs)
      .then(
        (ours) => {
          redisState.answered();
          if (!ours) return lose('expired or taken by another worker');
          validUntil = sent + leaseMs;
          arm();
        },
        (error: unknown) => redisState.failed(error),
      )
      .finally(() => (renewing = false));
  }, leaseMs / 3);
  return {
    stop: () => {
      clearInterval(renewal);
      clearTimeout(deadline);
    },
  };
}

interface OutageLog {
  failed: (error: unknown) => void;
  answered: () => void;
  down: () => boolean;
}

/** Logs the first failed lease command of an outage and the recovery, not every retry. */
function outageLog(logger: Logger): OutageLog {
  let down = false;
  return {
    failed: (error) => {
      if (!down) logger.warn({ err: error }, 'similar lists lease: Redis does not answer; retrying');
      down = true;
    },
    answered: () => {
      if (down) logger.info('similar lists lease: Redis answers again');
      down = false;
    },
    down: () => down,
  };
}

class LeaseCommandTimeout extends Error {
  constructor(ms: number) {
    super(`no reply from Redis within ${ms} ms`);
  }
}

/** The command's reply, or a rejection after `ms` (the command itself is not cancelled). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new LeaseCommandTimeout(ms)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
