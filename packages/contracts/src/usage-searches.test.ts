import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';
import { SEARCH_USAGE_MAX_LIMIT, SearchUsageQuery, SearchUsageResponse } from './usage-searches.ts';

describe('GET /v1/usage/searches contract', () => {
  it('takes a calendar day and a limit of 1..100, nothing else', () => {
    expect(SearchUsageQuery.parse({})).toEqual({});
    expect(SearchUsageQuery.parse({ day: '2026-11-24', limit: '100' })).toEqual({ day: '2026-11-24', limit: 100 });
    for (const bad of [
      { day: '2026-02-30' },
      { day: '24-11-2026' },
      { limit: '0' },
      { limit: String(SEARCH_USAGE_MAX_LIMIT + 1) },
      { limit: '1e2' },
      { owner: 'x' },
    ]) {
      expect(SearchUsageQuery.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('is in the OpenAPI document with its parameters and response schema', () => {
    const doc = buildOpenApiDocument();
    const get = doc.paths?.['/usage/searches']?.get;
    expect(get?.operationId).toBe('getSearchUsage');
    expect((get?.parameters ?? []).map((p) => ('name' in p ? p.name : ''))).toEqual(['day', 'limit']);
    expect(Object.keys(get?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403']);
    const schema = doc.components?.schemas?.SearchUsageResponse as { required?: string[] } | undefined;
    expect(schema?.required).toEqual(
      expect.arrayContaining([
        'owner',
        'day',
        'searches',
        'zero_results',
        'relaxed',
        'top_queries',
        'zero_result_queries',
        'relaxed_queries',
      ]),
    );
    expect(() =>
      SearchUsageResponse.parse({
        owner: 'Acme',
        time_zone: 'UTC',
        day: '2026-11-24',
        searches: 2,
        zero_results: 1,
        relaxed: 0,
        limit: 20,
        top_queries: [{ query: 'rose oud', count: 2 }],
        zero_result_queries: [{ query: 'rose oud', count: 1 }],
        relaxed_queries: [],
      }),
    ).not.toThrow();
  });
});
