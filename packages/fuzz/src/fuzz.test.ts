import { fc, it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { fuzzCase } from './cases.ts';
import { createFuzzer, fuzzRun, type Fuzzer } from './run.ts';
import { startFuzzStack, type FuzzTarget } from './stack.ts';

// The running catalogue and gateway, driven from the OpenAPI document they serve. A bounded run
// with a fixed seed; `npm run fuzz -- --runs 50000` is the long form.
describe('the data API under generated requests', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let target: FuzzTarget;
  let fuzzer: Fuzzer;

  beforeAll(async () => {
    [es, redis] = await Promise.all([testElasticsearch('fuzz'), testRedis('fuzz')]);
    target = await startFuzzStack({ elasticsearchUrl: es.url, redisUrl: redis.url, prefix: es.prefix, records: 400 });
    fuzzer = await createFuzzer(target);
  }, 120_000);
  afterAll(async () => {
    await fuzzer?.close();
    await target?.stop();
    await Promise.all([es?.cleanup(), redis?.cleanup()]);
  });

  it.prop([fc.gen()], { numRuns: 300, seed: 20_261_123, endOnFailure: true })(
    'answers every case as the contract says: valid → documented 2xx body, mutated → documented 4xx problem, never 5xx or the key',
    async (g) => {
      const generated = g(() => fuzzCase(fuzzer.context));
      const verdict = await fuzzer.check(generated);
      expect({
        kind: generated.kind,
        target: generated.target,
        status: verdict.status,
        failure: verdict.failure,
        detail: verdict.detail,
      }).toEqual({
        kind: generated.kind,
        target: generated.target,
        status: verdict.status,
        failure: undefined,
        detail: undefined,
      });
    },
    120_000,
  );

  it('counts every case of a run (what npm run fuzz prints)', async () => {
    const tally = await fuzzRun(fuzzer, { runs: 100, seed: 7, concurrency: 4 });
    expect(tally.cases).toBe(100);
    expect(Object.values(tally.byStatus).reduce((a, b) => a + b, 0)).toBe(100);
    expect(tally.failures).toEqual({});
    // Both halves of the contract were exercised.
    expect(tally.byKind.valid).toBeGreaterThan(10);
    expect(Object.keys(tally.byStatus).some((status) => status.startsWith('4'))).toBe(true);
  }, 60_000);
});
