import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { InvalidRequestTargetError } from '@fragrance/http';

/** http(s)://authority[/path][?query]: the absolute form clients send through a forward proxy. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#\s]+(\/[^?#]*)?(\?[^#]*)?$/i;
// Control characters have no business in a path, decoded or not.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Segments of unreserved characters only, no dot and no percent sign: nothing to decode and
 * nothing the checks below could refuse, so almost every request skips them.
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-]+)*\/?$/;

/** Why a raw path is refused, or undefined when every segment is a plain name. */
function pathProblem(path: string): string | undefined {
  if (PLAIN_PATH.test(path)) return undefined;
  const segments = path.split('/').slice(1);
  for (const [index, segment] of segments.entries()) {
    // A trailing slash is harmless; an empty segment anywhere else is an ambiguous path.
    if (segment === '') {
      if (index === segments.length - 1) continue;
      return 'has an empty path segment (//)';
    }
    if (segment.includes('\\')) return 'contains a backslash';
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'has a malformed percent-encoding';
    }
    if (decoded === '.' || decoded === '..') return 'has a dot segment (. or ..)';
    if (decoded.includes('/') || decoded.includes('\\')) return 'has an encoded slash or backslash in a segment';
    if (CONTROL.test(decoded)) return 'has a control character';
  }
  return undefined;
}

/** The origin-form target to route, or the reason the raw target is refused. */
export function checkRequestTarget(raw: string): { target: string } | { error: InvalidRequestTargetError } {
  let target = raw;
  if (!target.startsWith('/')) {
    const absolute = ABSOLUTE_FORM.exec(target);
    if (!absolute) {
      return {
        error: new InvalidRequestTargetError('The request target must be a path such as /v1/fragrances (or an absolute http URL).'),
      };
    }
    target = `${absolute[1] ?? '/'}${absolute[2] ?? ''}`;
  }
  if (target.includes('#')) return { error: new InvalidRequestTargetError('The request target must not carry a fragment.') };
  const query = target.indexOf('?');
  const problem = pathProblem(query === -1 ? target : target.slice(0, query));
  if (problem) return { error: new InvalidRequestTargetError(`The path ${problem}.`) };
  return { target };
}

const refused = new WeakMap<IncomingMessage, InvalidRequestTargetError>();

/**
 * Checks and normalises the request target once, before routing: an absolute-form target
 * (RFC 9112 §3.2.2) becomes its path and query; any other form, a dot segment, an encoded slash
 * or backslash, a bad percent-encoding or a control character is a 400. Upstreams therefore see
 * only plain origin-form paths, which cannot climb out of the routes the edge forwards, and every
 * service below decodes a path the same way the edge did.
 *
 * Express's router gives up on a target it cannot find a path in (e.g. `http://`) before any
 * middleware runs, so the check wraps the app's entry point; a refusal is raised by the
 * middleware this returns, after the request logger, so it is logged like any other answer.
 */
export function normaliseRequestTargets(app: Express): RequestHandler {
  // `handle` is Express's (untyped) entry point: what app(req, res) calls first.
  const entry = app as Express & { handle: (req: IncomingMessage, res: ServerResponse, done?: (error?: unknown) => void) => void };
  const route = entry.handle.bind(app);
  entry.handle = (req, res, done) => {
    const checked = checkRequestTarget(req.url ?? '');
    if ('error' in checked) {
      refused.set(req, checked.error);
      req.url = '/';
    } else {
      req.url = checked.target;
    }
    route(req, res, done);
  };
  return (req, _res, next) => {
    next(refused.get(req));
  };
}
