export {
  AppError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  UpstreamError,
  ValidationError,
} from './errors.ts';
export { notFoundHandler, problemHandler, sendProblem, toProblem } from './problem.ts';
export { createLogger, requestIdOf, requestLogger, type Logger } from './logger.ts';
export { serve, type ServeOptions } from './serve.ts';
