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

/**
 * Host-header check, the other half of DNS-rebinding protection: a page on evil.example that
 * resolves to this machine reaches us with `Host: evil.example`. Compares host names (ports
 * aside); an empty allow-list disables the check (a server bound to a public interface sits
 * behind the edge, which rewrites Host).
 */
export function requireAllowedHost(allowedHostnames: readonly string[]): RequestHandler {
  const allowed = new Set(allowedHostnames.map((host) => host.toLowerCase()));
  return (req, _res, next) => {
    if (allowed.size === 0) return void next();
    let hostname: string | undefined;
    try {
      hostname = req.headers.host ? new URL(`http://${req.headers.host}`).hostname : undefined;
    } catch {
      hostname = undefined;
    }
    if (!hostname || !allowed.has(hostname)) {
      throw new ForbiddenError(`Host ${JSON.stringify(req.headers.host ?? '').slice(0, 200)} is not served here.`);
    }
    next();
  };
}
