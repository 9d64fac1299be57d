import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@fragrance/http';
import { materialiseSimilar, type MaterialiseResult } from '@fragrance/search';

/**
 * Keeps the catalogue's materialised similar lists current (docs/search.md, "Similar"): one pass
 * at a time in the background, asked for at start, after each enrichment run and after an
 * ingest. A pass over an index whose current generation is already computed does nothing; a
 * request during a pass runs one more pass after it. Answers are live meanwhile.
 */
export interface SimilarRefresher {
  request: (reason: string) => void;
  /** Resolves when no pass is running or queued. */
  idle: () => Promise<void>;
  /** Ends the running pass between two records and takes no more requests. */
  stop: () => Promise<void>;
}

export function startSimilarRefresher({
  elasticsearch,
  alias,
  logger,
  ratePerSecond,
}: {
  elasticsearch: Client;
  alias: string;
  logger: Logger;
  /** The bound of a pass: records per second (one Elasticsearch request in flight at any time). */
  ratePerSecond: number;
}): SimilarRefresher {
  const controller = new AbortController();
  let running: Promise<void> | undefined;
  let again = false;

  async function pass(reason: string): Promise<void> {
    const started = performance.now();
    try {
      const result: MaterialiseResult = await materialiseSimilar({
        client: elasticsearch,
        alias,
        ratePerSecond,
        signal: controller.signal,
      });
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      if (result.outcome !== 'current') logger.info({ reason, ...result, seconds }, 'similar lists pass');
    } catch (error) {
      // Answers stay live; the next run or start asks again.
      logger.warn({ err: error, reason }, 'similar lists pass failed');
    }
  }

  function request(reason: string): void {
    if (controller.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = pass(reason).finally(() => {
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
      controller.abort();
      await idle();
    },
  };
}
