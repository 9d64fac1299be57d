import type { InvalidParam, ProblemCode } from '@fragrance/contracts';

/**
 * Base of every error a service may show a client. `code` is stable and documented (one of
 * `ProblemCode` in @fragrance/contracts); `status` and `title` shape the problem+json body. Anything that is not an AppError becomes a 500
 * whose details stay in the log.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(
    status: number,
    code: ProblemCode,
    title: string,
    detail?: string,
    options: { headers?: Record<string, string>; extensions?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(detail ?? title, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.title = title;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

/**
 * A request the body parser refused (bad charset, unsupported encoding, ...). Its own 4xx status
 * is kept; `code` is always `bad_request`.
 */
export class BadRequestError extends AppError {
  constructor(detail = 'The request could not be processed.', status = 400) {
    super(status, 'bad_request', 'Bad Request', detail);
  }
}

export class ValidationError extends AppError {
  readonly invalidParams: readonly InvalidParam[];

  constructor(invalidParams: readonly InvalidParam[], detail?: string) {
    super(400, 'invalid_parameter', 'Invalid request parameters', detail ?? invalidParams.map((p) => `${p.name}: ${p.reason}`).join('; '), {
      extensions: { invalid_params: invalidParams },
    });
    this.invalidParams = invalidParams;
  }
}

/** A request target the edge will not route: dot segments, encoded slashes, bad encodings, odd forms. */
export class InvalidRequestTargetError extends AppError {
  constructor(detail: string) {
    super(400, 'invalid_path', 'Invalid request path', detail);
  }
}

/** A method the resource does not support; `Allow` lists the ones it does. */
export class MethodNotAllowedError extends AppError {
  constructor(allow: readonly string[], detail: string) {
    super(405, 'method_not_allowed', 'Method Not Allowed', detail, { headers: { Allow: allow.join(', ') } });
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'The requested resource does not exist.') {
    super(404, 'not_found', 'Not Found', detail);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'A valid API key is required.', wwwAuthenticate = 'Bearer') {
    super(401, 'unauthorized', 'Unauthorized', detail, { headers: { 'WWW-Authenticate': wwwAuthenticate } });
  }
}

export class ForbiddenError extends AppError {
  constructor(detail = 'Not allowed.') {
    super(403, 'forbidden', 'Forbidden', detail);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, detail: string, code: ProblemCode = 'rate_limited') {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, code, 'Too Many Requests', detail, {
      headers: { 'Retry-After': String(seconds) },
      extensions: { retry_after_seconds: seconds },
    });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', 'Payload Too Large', `Request bodies may be at most ${limitBytes} bytes.`, {
      // The rest of the body is never read: the connection cannot be reused.
      headers: { Connection: 'close' },
    });
  }
}

/** A bug or broken invariant on our side: the detail stays generic, the cause goes to the log. */
export class InternalError extends AppError {
  constructor(detail = 'Something went wrong on our side.', cause?: unknown) {
    super(500, 'internal_error', 'Internal Server Error', detail, { cause });
  }
}

export class UpstreamError extends AppError {
  constructor(status: 502 | 503 | 504, detail: string, cause?: unknown) {
    const titles = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' } as const;
    const codes = { 502: 'upstream_error', 503: 'service_unavailable', 504: 'upstream_timeout' } as const;
    super(status, codes[status], titles[status], detail, { cause });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string, cause?: unknown, retryAfterSeconds?: number) {
    super(503, 'service_unavailable', 'Service Unavailable', detail, {
      cause,
      ...(retryAfterSeconds ? { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } } : {}),
    });
  }
}
