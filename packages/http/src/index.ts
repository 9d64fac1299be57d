export {
  AppError,
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
export { notFoundHandler, problemHandler, sendProblem, toProblem, writeProblem } from './problem.ts';
export { createLogger, isSafeRequestId, requestIdOf, requestLogger, type Logger } from './logger.ts';
export { serve, type ServeOptions } from './serve.ts';
