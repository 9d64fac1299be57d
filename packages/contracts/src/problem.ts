import { z } from 'zod';

/** One bad input, named so a client can point at it. */
export const InvalidParam = z
  .object({
    name: z.string().meta({ description: 'Parameter (query, path or body field) that was rejected.' }),
    reason: z.string().meta({ description: 'Why it was rejected.' }),
  })
  .meta({ id: 'InvalidParam' });

/**
 * Every stable `code` a service answers in problem+json, grouped by status. A client may switch
 * on these; adding one is an API change, renaming one is a breaking change. `AppError` takes only
 * these, so a code cannot appear in a response without being listed (and documented) here.
 */
export const PROBLEM_CODES = [
  // 400
  'bad_request',
  'invalid_parameter',
  'invalid_cursor',
  'invalid_path',
  // 401 / 403
  'unauthorized',
  'invalid_token',
  'key_expired',
  'key_rolled',
  'forbidden',
  'insufficient_scope',
  'endpoint_not_allowed',
  'origin_not_allowed',
  'secret_key_in_browser',
  // 404 / 405 / 413
  'not_found',
  'method_not_allowed',
  'payload_too_large',
  // 429
  'rate_limited',
  'daily_quota_exceeded',
  'burst_limit_exceeded',
  'visitor_limit_exceeded',
  'mcp_rate_limited',
  'registration_rate_limited',
  // 5xx
  'internal_error',
  'upstream_error',
  'service_unavailable',
  'upstream_timeout',
] as const;

export const ProblemCode = z.enum(PROBLEM_CODES);
export type ProblemCode = z.infer<typeof ProblemCode>;

/** RFC 9457 problem details, plus a stable machine-readable `code`. */
export const Problem = z
  .object({
    type: z.string().meta({ description: 'URI identifying the problem type.' }),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: ProblemCode.meta({ description: 'Stable machine-readable error code.', examples: ['invalid_parameter'] }),
    request_id: z.string().optional(),
    invalid_params: z.array(InvalidParam).optional(),
    retry_after_seconds: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Present on 429: whole seconds until a retry can succeed.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });

export type Problem = z.infer<typeof Problem>;
export type InvalidParam = z.infer<typeof InvalidParam>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
