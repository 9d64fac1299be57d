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
export { DEFAULT_SHUTDOWN_TIMEOUT_MS, drainable, serve, type ServeOptions } from './serve.ts';
export {
  checkDependencies,
  handleProbe,
  Lifecycle,
  probe,
  probeRoutes,
  type DependencyCheck,
  type DependencyStatus,
  type ProbeOptions,
  type ProbeReply,
} from './health.ts';
export { invalidParams, parsePath, parseQuery } from './params.ts';
export { deprecated, deprecationHeaders, DeprecationNotice } from './deprecation.ts';
