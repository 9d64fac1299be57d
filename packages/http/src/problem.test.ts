import { createServer } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { Problem } from '@fragrance/contracts';
import {
  BadRequestError,
  ForbiddenError,
  InternalError,
  InvalidRequestTargetError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  UpstreamError,
  ValidationError,
} from './errors.ts';
import { createLogger, requestLogger } from './logger.ts';
import { notFoundHandler, problemHandler, toProblem, writeProblem } from './problem.ts';

async function call(app: express.Express, path: string, init?: RequestInit) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, init);
    return { res, body: await res.json() };
  } finally {
    server.close();
  }
}

function appThatThrows(error: unknown) {
  const app = express();
  app.use(requestLogger(createLogger('test', 'silent')));
  app.use(express.json());
  app.get('/boom', () => {
    throw error;
  });
  app.post('/json', (_req, res) => res.json({ ok: true }));
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}

describe('problemHandler', () => {
  it('maps a ValidationError to 400 problem+json listing each parameter', async () => {
    const app = appThatThrows(new ValidationError([{ name: 'limit', reason: 'must be at most 100' }]));
    const { res, body } = await call(app, '/boom', { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('x-request-id')).toBe('req-123');
    const problem = Problem.parse(body);
    expect(problem).toMatchObject({ code: 'invalid_parameter', request_id: 'req-123' });
    expect(problem.invalid_params).toEqual([{ name: 'limit', reason: 'must be at most 100' }]);
  });

  it('sets Retry-After and retry_after_seconds on 429', async () => {
    const { res, body } = await call(appThatThrows(new RateLimitedError(2.2, 'slow down')), '/boom');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(Problem.parse(body).retry_after_seconds).toBe(3);
  });

  it('hides the details of an unexpected error', async () => {
    const { res, body } = await call(appThatThrows(new Error('secret stack detail')), '/boom');
    expect(res.status).toBe(500);
    expect(JSON.stringify(body)).not.toContain('secret stack detail');
    expect(Problem.parse(body)).toMatchObject({ code: 'internal_error', title: 'Internal Server Error' });
  });

  it('answers an InternalError with its generic detail, not its cause', async () => {
    const { res, body } = await call(appThatThrows(new InternalError(undefined, new Error('secret cause'))), '/boom');
    expect(res.status).toBe(500);
    expect(Problem.parse(body)).toMatchObject({ code: 'internal_error', detail: 'Something went wrong on our side.' });
    expect(JSON.stringify(body)).not.toContain('secret cause');
  });

  it("keeps the body parser's own 4xx status as bad_request", async () => {
    const { res, body } = await call(appThatThrows(new NotFoundError()), '/json', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=klingon' },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(Problem.parse(body)).toMatchObject({ status: 415, code: 'bad_request' });
  });

  it("answers the body parser's 413 as payload_too_large with the limit", async () => {
    const { res, body } = await call(appThatThrows(new NotFoundError()), '/json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(200 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(Problem.parse(body)).toMatchObject({
      status: 413,
      code: 'payload_too_large',
      detail: 'Request bodies may be at most 102400 bytes.',
    });
  });

  it('sends a MethodNotAllowedError with its Allow header', async () => {
    const { res, body } = await call(appThatThrows(new MethodNotAllowedError(['GET', 'HEAD'], 'read-only')), '/boom');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(Problem.parse(body)).toMatchObject({ code: 'method_not_allowed', detail: 'read-only' });
  });

  it('answers unknown routes and malformed JSON with problem+json', async () => {
    const app = appThatThrows(new NotFoundError());
    expect((await call(app, '/nope')).res.status).toBe(404);
    const { res, body } = await call(app, '/json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(Problem.parse(body).code).toBe('invalid_parameter');
  });

  it('replaces a malformed inbound request id', async () => {
    const { res } = await call(appThatThrows(new NotFoundError()), '/boom', {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('writeProblem', () => {
  it('answers a plain node:http response with the same problem+json and headers', async () => {
    const server = createServer((_req, res) => writeProblem(res, new RateLimitedError(1, 'slow down')));
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    try {
      const res = await fetch(`http://127.0.0.1:${port}/anything`);
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(Problem.parse(await res.json())).toMatchObject({
        type: 'https://docs.fragrance-catalogue.example/problems/rate_limited',
        status: 429,
        code: 'rate_limited',
        detail: 'slow down',
        retry_after_seconds: 1,
      });
    } finally {
      server.close();
    }
  });
});

describe('the shared error classes', () => {
  it('each becomes a Problem body that validates, with its own code and status', () => {
    const cases = [
      [new BadRequestError(), 400, 'bad_request'],
      [new ValidationError([{ name: 'q', reason: 'too long' }]), 400, 'invalid_parameter'],
      [new InvalidRequestTargetError('has dot segments'), 400, 'invalid_path'],
      [new UnauthorizedError(), 401, 'unauthorized'],
      [new ForbiddenError(), 403, 'forbidden'],
      [new NotFoundError(), 404, 'not_found'],
      [new MethodNotAllowedError(['GET'], 'read-only'), 405, 'method_not_allowed'],
      [new PayloadTooLargeError(1024), 413, 'payload_too_large'],
      [new RateLimitedError(1, 'slow down'), 429, 'rate_limited'],
      [new InternalError(), 500, 'internal_error'],
      [new UpstreamError(502, 'broke'), 502, 'upstream_error'],
      [new UpstreamError(503, 'down'), 503, 'service_unavailable'],
      [new UpstreamError(504, 'slow'), 504, 'upstream_timeout'],
      [new ServiceUnavailableError('down'), 503, 'service_unavailable'],
    ] as const;
    for (const [error, status, code] of cases) {
      expect(Problem.parse(toProblem(error)), error.name).toMatchObject({ status, code, title: error.title });
    }
  });
});
