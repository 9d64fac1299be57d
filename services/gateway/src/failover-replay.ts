import type { Redis } from 'ioredis';
import { createRecentAdmissions, type RecentAdmissions, type RecentReplay } from '@fragrance/api-keys';
import type { Logger } from '@fragrance/http';
import { onPrimaryChange } from '@fragrance/redis';
import type { GatewayConfig } from './config.ts';
import { failoverReplays } from './metrics.ts';

/** A replay Redis did not fully acknowledge is tried again this often, this many times. */
const RETRY_MS = 1_000;
const ATTEMPTS = 10;

export interface FailoverReplay {
  recent: RecentAdmissions;
  close: () => void;
}

/**
 * Billing across a Redis failover (docs/operations.md#degraded-admission): the requests Redis
 * counted in the last FAILOVER_REPLAY_WINDOW_MS are kept, and replayed into the new server when
 * the connection reaches another one; one log line per replay. Undefined when the window is 0.
 */
export function startFailoverReplay({
  config,
  redis,
  logger,
}: {
  config: Pick<GatewayConfig, 'FAILOVER_REPLAY_WINDOW_MS' | 'REDIS_PREFIX'>;
  redis: Redis;
  logger: Logger;
}): FailoverReplay | undefined {
  if (config.FAILOVER_REPLAY_WINDOW_MS === 0) return undefined;
  const recent = createRecentAdmissions({ redis, prefix: config.REDIS_PREFIX, windowMs: config.FAILOVER_REPLAY_WINDOW_MS });
  let timer: NodeJS.Timeout | undefined;
  const replay = async (): Promise<RecentReplay> => {
    const result = await recent.replay();
    for (const [label, count] of [
      ['counted', result.counted],
      ['already_counted', result.alreadyCounted],
      ['refund', result.refunds],
      ['skipped', result.skipped],
      ['failed', result.failed],
    ] as const) {
      if (count > 0) failoverReplays.inc({ result: label }, count);
    }
    return result;
  };
  const afterChange = (attempt: number) => {
    clearTimeout(timer);
    void replay().then(
      (result) => {
        logger.warn({ ...result, kept: recent.size(), attempt }, 'Redis changed server: replayed the recent admissions it may lack');
        if (result.failed > 0 && attempt < ATTEMPTS) timer = setTimeout(() => afterChange(attempt + 1), RETRY_MS).unref();
      },
      (error: unknown) => logger.warn({ err: error }, 'Redis changed server: replaying the recent admissions failed'),
    );
  };
  const stop = onPrimaryChange(redis, () => afterChange(1));
  return {
    recent,
    close: () => {
      stop();
      clearTimeout(timer);
    },
  };
}
