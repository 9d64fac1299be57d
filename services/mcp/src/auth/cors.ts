import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * How long a browser may reuse a preflight answer. Browsers cap it themselves (Chromium at
 * 2 hours, Firefox at 24 hours); 2 hours saves a round trip per request without keeping a
 * changed policy cached for long.
 */
export const PREFLIGHT_MAX_AGE_SECONDS = 7_200;

/** Request headers MCP clients send (the SDK adds MCP-Protocol-Version even to metadata requests). */
const MCP_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'MCP-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
  // 2026-07-28: every POST names its method (and tool, resource or prompt) in headers too (SEP-2243).
  'Mcp-Method',
  'Mcp-Name',
];
/** Response headers a page must be able to read: the challenge that names the metadata, and the session headers. */
const MCP_EXPOSED_HEADERS = ['WWW-Authenticate', 'Mcp-Session-Id', 'MCP-Protocol-Version'];

/**
 * RFC 9728 metadata is public: any origin may read it, without credentials. `*` (not the
 * origin echoed), so the answer does not depend on Origin and caches stay shared.
 */
export function metadataCors(): RequestHandler {
  return cors({
    origin: '*',
    methods: ['GET', 'HEAD'],
    allowedHeaders: MCP_REQUEST_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
}

/**
 * CORS for `/mcp`, mounted after the Origin check (which already answered 403 to any origin
 * not listed): the preflight of a listed origin is answered here, before the bearer check (a
 * preflight never carries a token), and every answer to it, a 401 challenge included, is
 * readable with its WWW-Authenticate. No credentials: the token travels in a header, never in
 * a cookie.
 */
export function mcpCors(allowedOrigins: readonly string[]): RequestHandler {
  const allowed = new Set(allowedOrigins.map((origin) => origin.toLowerCase()));
  return cors({
    // The origin echoed only when listed; `cors` adds Vary: Origin because the answer depends on it.
    origin: (origin, callback) => {
      callback(null, origin !== undefined && allowed.has(origin.toLowerCase()));
    },
    methods: ['POST', 'GET', 'DELETE'],
    allowedHeaders: MCP_REQUEST_HEADERS,
    exposedHeaders: MCP_EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
}
