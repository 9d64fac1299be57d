import type { Response } from 'express';
import { serializeList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { setRateLimitHeaders, type QuotaHeaderValues } from './rate-limit-headers.ts';

/** The headers setRateLimitHeaders sets, by name. */
function headersOf(quota: QuotaHeaderValues, burst?: number): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  setRateLimitHeaders({ setHeader: (name: string, value: unknown) => void (set[name] = value) } as unknown as Response, quota, burst);
  return set;
}

/** What the fields were before the hand-written fast path: structured-headers over Maps. */
const item = (policy: string, params: [string, number][]): [string, Map<string, number>] => [policy, new Map(params)];

describe('setRateLimitHeaders', () => {
  it('writes exactly what structured-headers writes, integers or not', () => {
    const cases: [QuotaHeaderValues, number | undefined][] = [
      [{ limit: 250, remaining: 249, resetInSeconds: 3600 }, undefined],
      [{ limit: 100, remaining: 0, resetInSeconds: 86_399 }, 7],
      [{ limit: 1_000_000_000, remaining: 999_999_999, resetInSeconds: 1 }, 1],
      [{ limit: 100, remaining: -0, resetInSeconds: 0 }, 0],
      // Not what admission produces, but the serialisation must not change for them either.
      [{ limit: 100, remaining: 2.5, resetInSeconds: 0.125 }, 1.75],
    ];
    for (const [quota, burst] of cases) {
      const daily = item('daily', [
        ['r', quota.remaining],
        ['t', quota.resetInSeconds],
      ]);
      const expected = serializeList(
        burst === undefined
          ? [daily]
          : [
              item('burst', [
                ['r', 0],
                ['t', burst],
              ]),
              daily,
            ],
      );
      expect(headersOf(quota, burst)).toEqual({
        'RateLimit-Limit': String(quota.limit),
        'RateLimit-Remaining': String(quota.remaining),
        'RateLimit-Reset': String(quota.resetInSeconds),
        'RateLimit-Policy': serializeList([
          item('daily', [
            ['q', quota.limit],
            ['w', 86_400],
          ]),
        ]),
        RateLimit: expected,
      });
    }
  });

  it('still refuses what a Structured Field cannot carry', () => {
    expect(() => headersOf({ limit: 1e16, remaining: 0, resetInSeconds: 0 })).toThrow();
  });
});
