import { z } from 'zod';

/** One bad input, named so a client can point at it. */
export const InvalidParam = z
  .object({
    name: z.string().meta({ description: 'Parameter (query, path or body field) that was rejected.' }),
    reason: z.string().meta({ description: 'Why it was rejected.' }),
  })
  .meta({ id: 'InvalidParam' });

/** RFC 9457 problem details, plus a stable machine-readable `code`. */
export const Problem = z
  .object({
    type: z.string().meta({ description: 'URI identifying the problem type.' }),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.string().meta({ description: 'Stable machine-readable error code.', example: 'invalid_parameter' }),
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
