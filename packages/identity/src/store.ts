import type { Redis } from 'ioredis';

/** What every identity store is: Redis keys under one prefix (`fcs:` unless given), so tests isolate under their own. */
export abstract class RedisStore {
  protected readonly redis: Redis;
  protected readonly prefix: string;

  constructor(redis: Redis, prefix = 'fcs:') {
    this.redis = redis;
    this.prefix = prefix;
  }
}
