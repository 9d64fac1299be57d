export {
  AppError,
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
export { notFoundHandler, problemHandler, sendProblem, writeProblem } from './problem.ts';
export { bufferedStdout, createLogger, requestIdOf, requestLogger, type Logger } from './logger.ts';
export { serviceApp } from './app.ts';
export { serve } from './serve.ts';
export { checkDependencies, handleProbe, Lifecycle, probeRoutes, type DependencyCheck } from './health.ts';
export { parsePath, parseQuery } from './params.ts';
export { deprecated, DeprecationNotice } from './deprecation.ts';
