import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { APPLICABLE, runConformance, startBehindTokenProxy } from '../scripts/conformance.ts';

// The official suite against the real app (behind a proxy that adds a valid token): every
// scenario that applies to a read-only, stateless tools server must pass.
describe('@modelcontextprotocol/conformance server scenarios (2025-11-25)', () => {
  let target: Awaited<ReturnType<typeof startBehindTokenProxy>>;
  beforeAll(async () => {
    target = await startBehindTokenProxy(inject('redisUrl'));
  });
  afterAll(() => target.stop());

  it('passes every applicable scenario', { timeout: 180_000 }, async () => {
    const results = await runConformance(target.url, APPLICABLE);
    for (const result of results) {
      expect(result.failures, result.scenario).toEqual([]);
      if (result.scenario === 'server-session-lifecycle') {
        expect(result.skippedBySuite, 'stateless: the suite skips session checks').toMatch(/stateless/i);
      } else {
        expect(result.passed, result.scenario).toBeGreaterThan(0);
      }
    }
  });
});
