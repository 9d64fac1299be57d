import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { PROBLEM_CONTENT_TYPE, type Problem } from '@fragrance/contracts';
import { AppError, NotFoundError, ValidationError } from './errors.ts';

const TYPE_BASE = 'https://docs.fragrance-catalogue.example/problems/';

export function toProblem(error: AppError, requestId?: string): Problem {
  return {
    type: `${TYPE_BASE}${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(requestId ? { request_id: requestId } : {}),
    ...error.extensions,
  };
}

export function sendProblem(res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const requestId = res.getHeader('x-request-id');
  res
    .status(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(toProblem(error, typeof requestId === 'string' ? requestId : undefined)));
}

/** Turns anything thrown into problem+json: the one place errors meet HTTP. */
export const problemHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  if (res.headersSent) {
    req.log?.error({ err }, 'error after response started');
    res.destroy();
    return;
  }
  if (err instanceof AppError) {
    if (err.status >= 500) req.log?.error({ err }, err.message);
    sendProblem(res, err);
    return;
  }
  const bodyError = err as { type?: string; status?: number };
  if (bodyError.type === 'entity.parse.failed') {
    sendProblem(res, new ValidationError([{ name: 'body', reason: 'is not valid JSON' }]));
    return;
  }
  if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    sendProblem(res, new AppError(bodyError.status, 'bad_request', 'Bad Request', 'The request could not be processed.'));
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  sendProblem(res, new AppError(500, 'internal_error', 'Internal Server Error', 'Something went wrong on our side.'));
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`No route for ${req.method} ${req.path}.`));
};
