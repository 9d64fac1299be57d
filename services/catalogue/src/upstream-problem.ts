import { errors } from '@elastic/elasticsearch';
import type { ErrorRequestHandler, Request } from 'express';
import { InternalError, ServiceUnavailableError, ValidationError, type Logger } from '@fragrance/http';
import { InvalidCursorError, SearchInputError } from '@fragrance/search';
import { ElasticsearchUnavailableError } from './breaker.ts';
import { InvalidCursorProblem } from './errors.ts';

/** Retry-After of a 503 for a failure seen before the breaker opened (it may be a passing one). */
const OUTAGE_RETRY_AFTER_SECONDS = 1;

/**
 * Turns an Elasticsearch failure into a problem a client can act on, never a bare 500; anything
 * else (a problem already, express's own 400 for a malformed path) goes on as it is.
 */
function upstreamProblem(error: unknown, req: Request, logger: Logger): unknown {
  if (error instanceof ElasticsearchUnavailableError) {
    return new ServiceUnavailableError('The catalogue is temporarily unavailable.', error, error.retryAfterSeconds);
  }
  if (error instanceof InvalidCursorError) return new InvalidCursorProblem(error.message);
  if (error instanceof SearchInputError) return new ValidationError([{ name: error.param, reason: error.message }]);
  if (error instanceof errors.ResponseError) {
    const type = (error.body as { error?: { type?: string } } | undefined)?.error?.type;
    if (error.statusCode === 404 && type === 'index_not_found_exception') {
      return new ServiceUnavailableError('The catalogue is not loaded yet; try again shortly.', error);
    }
    if (error.statusCode === 400) {
      // Parameters are validated before a query is built, so this is a bug, not bad input;
      // logged in full, shown without detail.
      (req.log ?? logger).error({ err: error, type }, 'Elasticsearch rejected a query');
      return new InternalError(undefined, error);
    }
    return new ServiceUnavailableError('The catalogue is temporarily unavailable.', error, OUTAGE_RETRY_AFTER_SECONDS);
  }
  if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError) {
    return new ServiceUnavailableError('The catalogue is temporarily unavailable.', error, OUTAGE_RETRY_AFTER_SECONDS);
  }
  return error;
}

/**
 * Every route's failure passes through `upstreamProblem` here, after the routes and before the
 * shared problem handler: the routes throw what they get and need no catch of their own.
 */
export function upstreamProblems(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, _res, next) => {
    next(upstreamProblem(error, req, logger));
  };
}
