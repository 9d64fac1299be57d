// The oracle: what every answer to a generated request must be, whatever the request.
import type { FuzzCase } from './cases.ts';
import type { ApiModel } from './model.ts';

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Why an answer breaks the contract; undefined when it keeps it. */
export type Failure =
  | 'server_error'
  | 'secret_echoed'
  | 'accepted_invalid'
  | 'refused_valid'
  | 'schema_mismatch'
  | 'not_problem_json'
  | 'problem_schema_mismatch'
  | 'undocumented_status'
  | 'unexpected_status';

export interface Verdict {
  failure?: Failure;
  detail?: string;
}

/** Answers a path outside the document may get: refused at the edge or unknown. */
const OFF_DOCUMENT_STATUSES = new Set(['400', '401', '404']);

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * Judges one answer: never a 5xx, never the caller's key in a body; a valid request gets a 2xx
 * whose JSON matches its documented schema; anything else gets a 4xx problem+json that matches
 * the Problem schema, with a status its operation documents.
 */
export function judge(model: ApiModel, fuzzCase: FuzzCase, answer: Answer, secret: string): Verdict {
  const { status } = answer;
  if (status >= 500) return { failure: 'server_error', detail: answer.body.slice(0, 300) };
  if (answer.body.includes(secret)) return { failure: 'secret_echoed' };
  if (status === 200) {
    if (fuzzCase.expect === 'reject') return { failure: 'accepted_invalid' };
    const validate = fuzzCase.operation?.validator(status);
    if (validate && !validate(parse(answer.body))) {
      return { failure: 'schema_mismatch', detail: JSON.stringify(validate.errors?.slice(0, 3)) };
    }
    return {};
  }
  if (status === 304) return fuzzCase.expect === 'reject' ? { failure: 'accepted_invalid' } : {};
  if (status >= 400 && status < 500) {
    if (fuzzCase.expect === 'success') return { failure: 'refused_valid', detail: answer.body.slice(0, 300) };
    if (!answer.contentType.includes('application/problem+json')) return { failure: 'not_problem_json', detail: answer.contentType };
    const problem = parse(answer.body);
    if (!model.problem(problem) || (problem as { status?: unknown }).status !== status) {
      return { failure: 'problem_schema_mismatch', detail: JSON.stringify(model.problem.errors?.slice(0, 3)) };
    }
    const documented = fuzzCase.operation ? fuzzCase.operation.statuses : OFF_DOCUMENT_STATUSES;
    if (!documented.has(String(status))) return { failure: 'undocumented_status', detail: `${status} ${answer.body.slice(0, 200)}` };
    return {};
  }
  return { failure: 'unexpected_status', detail: String(status) };
}
