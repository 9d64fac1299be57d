import type { Redis } from 'ioredis';

const RUN_ID = /^run_id:([0-9a-f]+)\r?$/m;

/**
 * Calls `listener` each time the client is connected again to another Redis server process than
 * before: a replica promoted by Sentinel, or the same server restarted (each start has a new
 * `run_id`). Either may lack the last writes the old one acknowledged (replication and the AOF
 * trail the replies). A reconnect whose `INFO` fails counts as a change: the listener's work
 * must be safe to repeat. Returns a function that stops watching.
 */
export function onPrimaryChange(redis: Redis, listener: () => void): () => void {
  let runId: string | undefined;
  const check = () => {
    redis.info('server').then(
      (text) => {
        const current = RUN_ID.exec(text)?.[1];
        if (runId !== undefined && current !== runId) listener();
        runId = current ?? runId;
      },
      () => {
        if (runId !== undefined) listener();
      },
    );
  };
  redis.on('ready', check);
  if (redis.status === 'ready') check();
  return () => void redis.off('ready', check);
}
