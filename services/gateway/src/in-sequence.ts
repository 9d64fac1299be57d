import type { RequestHandler } from 'express';

/**
 * Middleware run one after another as one: the first error (or a handler that throws) goes to
 * the router's next, skipping the rest, as separate layers would. Only for synchronous
 * middleware that calls next (a promise one returns is not awaited).
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      const handler = handlers[index++];
      if (error !== undefined && error !== null) done(error);
      else if (!handler) done();
      else {
        try {
          void handler(req, res, next);
        } catch (thrown) {
          done(thrown);
        }
      }
    };
    next();
  };
}
