import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';
import { Problem, PROBLEM_CODES } from './problem.ts';

describe('Problem', () => {
  it('accepts an RFC 9457 body with a code', () => {
    const body = { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' };
    expect(Problem.parse(body)).toEqual(body);
  });

  it('rejects a non-integer retry_after_seconds and a non-error status', () => {
    expect(Problem.safeParse({ type: 't', title: 't', status: 429, code: 'rate_limited', retry_after_seconds: 0.5 }).success).toBe(false);
    expect(Problem.safeParse({ type: 't', title: 't', status: 200, code: 'not_found' }).success).toBe(false);
  });

  it('rejects a code that is not a listed ProblemCode', () => {
    expect(Problem.safeParse({ type: 't', title: 't', status: 400, code: 'invalid_parameter' }).success).toBe(true);
    expect(Problem.safeParse({ type: 't', title: 't', status: 400, code: 'InvalidParameter' }).success).toBe(false);
    expect(Problem.safeParse({ type: 't', title: 't', status: 500, code: 'INTERNAL_ERROR' }).success).toBe(false);
  });

  it('lists each code once, in snake_case', () => {
    expect(new Set(PROBLEM_CODES).size).toBe(PROBLEM_CODES.length);
    for (const code of PROBLEM_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});

describe('Problem in the OpenAPI document', () => {
  it('documents exactly the ProblemCode list as the enum of Problem.code', () => {
    const schema = buildOpenApiDocument().components?.schemas?.Problem as { properties?: Record<string, { enum?: unknown }> } | undefined;
    expect(schema?.properties?.code?.enum).toEqual([...PROBLEM_CODES]);
  });
});
