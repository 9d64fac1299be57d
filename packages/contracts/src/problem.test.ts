import { describe, expect, it } from 'vitest';
import { Problem } from './problem.ts';

describe('Problem', () => {
  it('accepts an RFC 9457 body with a code', () => {
    const body = { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' };
    expect(Problem.parse(body)).toEqual(body);
  });

  it('rejects a non-integer retry_after_seconds and a non-error status', () => {
    expect(Problem.safeParse({ type: 't', title: 't', status: 429, code: 'c', retry_after_seconds: 0.5 }).success).toBe(false);
    expect(Problem.safeParse({ type: 't', title: 't', status: 200, code: 'c' }).success).toBe(false);
  });
});
