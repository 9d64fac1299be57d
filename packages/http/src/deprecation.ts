import type { RequestHandler } from 'express';
import { serializeItem } from 'structured-headers';
import { z } from 'zod';

/**
 * A route's deprecation, as announced to clients: when it is (or will be) deprecated, when it may
 * stop answering, and where a person reads what to use instead.
 */
export const DeprecationNotice = z
  .strictObject({
    /** The moment the route is (or becomes) deprecated; may lie in the future. */
    deprecation: z.iso.datetime({ offset: true, error: 'must be an RFC 3339 date-time, e.g. 2027-01-01T00:00:00Z' }),
    /** When it may stop answering; not before `deprecation` (RFC 9745 §4). */
    sunset: z.iso.datetime({ offset: true, error: 'must be an RFC 3339 date-time, e.g. 2027-07-01T00:00:00Z' }).optional(),
    /** A page explaining the deprecation and the replacement (Link rel="deprecation"). */
    link: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    /** A page about the sunset, when it is not the same page (Link rel="sunset", RFC 8594 §3). */
    sunset_link: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  })
  .refine((notice) => notice.sunset === undefined || Date.parse(notice.sunset) >= Date.parse(notice.deprecation), {
    error: 'sunset must not be earlier than deprecation',
    path: ['sunset'],
  });
export type DeprecationNotice = z.infer<typeof DeprecationNotice>;

/** The response headers that announce a notice (computed once per route, not per request). */
export function deprecationHeaders(notice: DeprecationNotice): Record<string, string> {
  const parsed = DeprecationNotice.parse(notice);
  // RFC 9745: a Structured Field Date, whole seconds since the epoch (`@1798761600`).
  const deprecatedAt = new Date(Math.floor(Date.parse(parsed.deprecation) / 1000) * 1000);
  const headers: Record<string, string> = { Deprecation: serializeItem(deprecatedAt) };
  // RFC 8594: an HTTP-date (IMF-fixdate).
  if (parsed.sunset) headers.Sunset = new Date(parsed.sunset).toUTCString();
  const links: string[] = [];
  if (parsed.link) links.push(`<${new URL(parsed.link).href}>; rel="deprecation"; type="text/html"`);
  const sunsetLink = parsed.sunset_link ?? (parsed.sunset ? parsed.link : undefined);
  if (sunsetLink) links.push(`<${new URL(sunsetLink).href}>; rel="sunset"; type="text/html"`);
  if (links.length > 0) headers.Link = links.join(', ');
  return headers;
}

/**
 * Middleware for a deprecated route: every response it gives (errors and 304s included) carries
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) when a sunset is set, and `Link`s to the notice.
 * Nothing else changes: a deprecated route answers exactly as before. A Link the route sets
 * itself is kept, the deprecation links appended.
 */
export function deprecated(notice: DeprecationNotice): RequestHandler {
  const headers = deprecationHeaders(notice);
  return (_req, res, next) => {
    for (const [name, value] of Object.entries(headers)) {
      const existing = name === 'Link' ? res.getHeader('Link') : undefined;
      res.setHeader(name, existing === undefined ? value : `${String(existing)}, ${value}`);
    }
    next();
  };
}
