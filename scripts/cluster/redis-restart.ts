// What the cluster's watchdog does with a Redis node whose process is gone. Pure, so the rule is
// tested apart from the processes it starts.

export type RedisRestart = { action: 'wait' } | { action: 'start'; replicaOf: string | null };

export interface DeadRedisNode {
  /** `127.0.0.1:<port>` of the dead node. */
  address: string;
  /** `host:port` the Sentinels now call primary, or null when none answers. */
  sentinelPrimary: string | null;
  /** How long the watchdog has seen it dead. */
  deadForMs: number;
  /** Sentinel's down-after + failover timeout: past it, Sentinel is not going to replace it. */
  graceMs: number;
}

/**
 * A dead primary (or one whose role nobody can tell) is Sentinel's to replace: started again
 * within Sentinel's down-after it would come back as primary from its AOF and no failover would
 * happen. Once Sentinel has promoted another node, the dead one comes back as its replica, so two
 * primaries never take writes; past the grace (no replica to promote, no quorum) it starts in place.
 */
export function redisRestart({ address, sentinelPrimary, deadForMs, graceMs }: DeadRedisNode): RedisRestart {
  const elsewhere = sentinelPrimary !== null && sentinelPrimary !== address;
  if (elsewhere) return { action: 'start', replicaOf: sentinelPrimary };
  return deadForMs < graceMs ? { action: 'wait' } : { action: 'start', replicaOf: null };
}
