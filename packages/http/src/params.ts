import type { Request } from 'express';
import type { z } from 'zod';
import type { InvalidParam } from '@fragrance/contracts';
import { ValidationError } from './errors.ts';

/** The raw query string of a request, as the client sent it. */
function rawQuery(req: Request): URLSearchParams {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
}

/** Maps zod issues onto named parameters, one entry per parameter and reason. */
export function invalidParams(error: z.ZodError): InvalidParam[] {
  const out: InvalidParam[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ name: key, reason: 'is not a known parameter' });
    } else {
      out.push({ name: String(issue.path[0] ?? 'query'), reason: issue.message });
    }
  }
  return out;
}

/**
 * Parses the query string with a contract schema. A parameter given twice is an error (list
 * filters take one comma-separated value); unknown parameters are rejected by the schema.
 */
export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  const params = rawQuery(req);
  // No prototype: on a plain {} `values.__proto__ = v` hits the inherited setter instead of
  // adding a key, so `?__proto__=1` slipped past the strict schema's unknown-key check.
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  const repeated = new Set<string>();
  for (const [key, value] of params) {
    if (Object.hasOwn(values, key)) repeated.add(key);
    else values[key] = value;
  }
  const result = schema.safeParse(values);
  const problems: InvalidParam[] = [...repeated].map((name) => ({
    name,
    reason: 'must be given at most once (separate several values with commas where a list is allowed)',
  }));
  if (!result.success) problems.push(...invalidParams(result.error).filter((p) => !repeated.has(p.name)));
  if (problems.length > 0) throw new ValidationError(problems);
  return result.data as z.output<S>;
}

/** Validates path parameters with a contract schema, naming each bad one. */
export function parsePath<S extends z.ZodType>(params: unknown, schema: S): z.output<S> {
  const result = schema.safeParse(params);
  if (!result.success) throw new ValidationError(invalidParams(result.error));
  return result.data;
}
