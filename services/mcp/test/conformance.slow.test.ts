import { describe, expect } from 'vitest';
import { APPLICABLE, NOT_APPLICABLE, REVISIONS } from '../scripts/conformance-scenarios.ts';
import { runConformance, scenariosOf, startWithValidToken } from '../scripts/conformance.ts';
import { mcpTest } from '../src/testing/app.ts';

/** The app on the test Redis with a valid token set on every request (the suite sends none); stateless, so one serves every revision. */
const it = mcpTest.extend('target', { scope: 'file' }, async ({ redis }, { onCleanup }) => {
  const target = await startWithValidToken(redis.url);
  onCleanup(() => target.stop());
  return target;
});

// The official suite against the real app (with a valid token set on every request), at each
// protocol revision we negotiate: every scenario that applies to a read-only, stateless server
// must pass, and every scenario the suite requires is either applicable or listed with a reason.
describe.each(REVISIONS)('@modelcontextprotocol/conformance server scenarios (%s)', (revision) => {
  it('classifies every scenario the suite requires: applicable, or not applicable with a reason', async () => {
    const unclassified = (await scenariosOf(revision)).filter((s) => !APPLICABLE[revision].includes(s) && !(s in NOT_APPLICABLE));
    expect(unclassified).toEqual([]);
  });

  it('passes every applicable scenario', { timeout: 240_000 }, async ({ target }) => {
    const results = await runConformance(target.url, revision, APPLICABLE[revision]);
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
