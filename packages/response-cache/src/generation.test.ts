import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import {
  bumpCatalogueGeneration,
  enrichmentGenerationOf,
  generationMark,
  readCatalogueGeneration,
  recordAliasTargets,
  type GenerationScope,
} from './generation.ts';

describe('catalogue generation (real Redis)', () => {
  let redis: TestRedis;
  let scope: GenerationScope;
  beforeAll(async () => {
    redis = await testRedis('generation');
    scope = { prefix: redis.prefix.replace(/:$/, ''), alias: 'fragrances' };
  });
  afterAll(() => redis.cleanup());

  it('bumps the counter once when the alias points somewhere new, however many instances notice', async () => {
    expect(await readCatalogueGeneration(redis.redis, scope)).toBe('0');
    expect(await recordAliasTargets(redis.redis, scope, 'fragrances-v1')).toBe(1); // nothing recorded before
    expect(await recordAliasTargets(redis.redis, scope, 'fragrances-v1')).toBeUndefined();
    const noticed = await Promise.all(Array.from({ length: 10 }, () => recordAliasTargets(redis.redis, scope, 'fragrances-v2')));
    expect(noticed.filter((bumped) => bumped !== undefined)).toEqual([2]);
    expect(await readCatalogueGeneration(redis.redis, scope)).toBe('2');
    // An announced change bumps as before, and the recorded indices are untouched by it.
    expect(await bumpCatalogueGeneration(redis.redis, scope)).toBe(3);
    expect(await recordAliasTargets(redis.redis, scope, 'fragrances-v2')).toBeUndefined();
  });

  it('publishes every bump on the counter’s channel', async () => {
    const subscriber = redis.connect();
    const channel = `${scope.prefix}:catalogue-generation:${scope.alias}`;
    const heard: string[] = [];
    subscriber.on('message', (from: string, message: string) => {
      if (from === channel) heard.push(message);
    });
    await subscriber.subscribe(channel);
    const bumped = await recordAliasTargets(redis.redis, scope, 'fragrances-v3');
    // A marker published after the bump arrives after every message the bump published (one
    // connection's messages keep their order), so this also proves the bump published only once.
    await redis.redis.publish(channel, 'marker');
    await expect.poll(() => heard).toEqual([String(bumped), 'marker']);
  });

  it('marks an answer with the counter’s key and value', () => {
    expect(generationMark({ prefix: 'fcs:jobs', alias: 'fragrances' }, '7')).toBe('fcs:jobs:catalogue-generation:fragrances=7');
  });

  it('reads the counter part of a generation', () => {
    expect(enrichmentGenerationOf('fragrances-v1,fragrances-v2#12')).toBe('12');
    expect(enrichmentGenerationOf('fragrances-v1#0')).toBe('0');
    expect(enrichmentGenerationOf('no-counter')).toBeUndefined();
    expect(enrichmentGenerationOf(undefined)).toBeUndefined();
  });
});
