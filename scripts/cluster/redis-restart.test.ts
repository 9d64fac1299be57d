import { describe, expect, it } from 'vitest';
import { redisRestart } from './redis-restart.ts';

const node = { address: '127.0.0.1:6381', graceMs: 12_000 };

describe("the watchdog's rule for a dead Redis node", () => {
  it('leaves a dead primary to Sentinel (restarted at once it stayed primary and no failover happened)', () => {
    expect(redisRestart({ ...node, sentinelPrimary: '127.0.0.1:6381', deadForMs: 2_000 })).toEqual({ action: 'wait' });
  });

  it('starts it again as a replica of the node Sentinel promoted', () => {
    expect(redisRestart({ ...node, sentinelPrimary: '127.0.0.1:6382', deadForMs: 4_000 })).toEqual({
      action: 'start',
      replicaOf: '127.0.0.1:6382',
    });
  });

  it('starts a dead replica again at once, as a replica of the primary', () => {
    expect(redisRestart({ ...node, sentinelPrimary: '127.0.0.1:6382', deadForMs: 0 })).toEqual({
      action: 'start',
      replicaOf: '127.0.0.1:6382',
    });
  });

  it('starts it in place once Sentinel has not moved on within the grace, or when no Sentinel answers for that long', () => {
    expect(redisRestart({ ...node, sentinelPrimary: '127.0.0.1:6381', deadForMs: 12_000 })).toEqual({ action: 'start', replicaOf: null });
    expect(redisRestart({ ...node, sentinelPrimary: null, deadForMs: 3_000 })).toEqual({ action: 'wait' });
    expect(redisRestart({ ...node, sentinelPrimary: null, deadForMs: 12_000 })).toEqual({ action: 'start', replicaOf: null });
  });
});
