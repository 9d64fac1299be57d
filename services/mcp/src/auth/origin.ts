import type { RequestHandler } from 'express';
import { ForbiddenError } from '@fragrance/http';

/**
 * DNS-rebinding protection (MCP transport spec): a request carrying an Origin that is not on the
 * allow-list is refused with 403 before anything else runs. Requests without Origin (every
 * non-browser client) pass; a browser always sends it on cross-origin POSTs.
 */
export function requireAllowedOrigin(allowedOrigins: readonly string[]): RequestHandler {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  return (req, _res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(origin.toLowerCase())) {
      throw new ForbiddenError(`Origin ${JSON.stringify(origin).slice(0, 200)} is not allowed to call this MCP server.`);
    }
    next();
  };
}
