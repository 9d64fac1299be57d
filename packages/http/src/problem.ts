import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { PROBLEM_CONTENT_TYPE, type Problem } from '@fragrance/contracts';
import { AppError, PayloadTooLargeError, BadRequestError, InternalError, NotFoundError, ValidationError } from './errors.ts';

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

/**
 * `sendProblem` for a plain node:http server (no Express), e.g. the worker's health port: the
 * same headers and body.
 */
export function writeProblem(res: ServerResponse, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  const requestId = res.getHeader('x-request-id');
  const body = JSON.stringify(toProblem(error, typeof requestId === 'string' ? requestId : undefined));
  res.writeHead(error.status, { 'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, 'content-length': Buffer.byteLength(body) });
  res.end(body);
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
  const bodyError = err as { type?: string; status?: number; limit?: number };
  if (bodyError.type === 'entity.parse.failed') {
    sendProblem(res, new ValidationError([{ name: 'body', reason: 'is not valid JSON' }]));
    return;
  }
  if (bodyError.type === 'entity.too.large' && typeof bodyError.limit === 'number') {
    sendProblem(res, new PayloadTooLargeError(bodyError.limit));
    return;
  }
  if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    sendProblem(res, new BadRequestError(undefined, bodyError.status));
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  sendProblem(res, new InternalError());
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`No route for ${req.method} ${req.path}.`));
};
