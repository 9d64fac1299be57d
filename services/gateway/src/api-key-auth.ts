import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ADMISSION_ID, keyKindOf, type Admission, type Admitter, type QuotaState, type RouteAccess } from '@fragrance/api-keys';
import { RateLimitedError, ServiceUnavailableError, UnauthorizedError, ValidationError } from '@fragrance/http';
import { FORBIDDEN_DETAIL, KeyExpiredError, KeyForbiddenError, KeyRolledError } from './key-refusals.ts';
import { admissions, timedRedisCall, type AdmissionOutcome } from './metrics.ts';
import { setRateLimitHeaders } from './rate-limit-headers.ts';
import { clientAddressOf, isOwnOrigin, pageOriginOf, requestedLimitOf } from './request-facts.ts';

const REALM = 'Bearer realm="fragrance-catalogue"';

/** The credential of `Authorization: Bearer <key>` (scheme case-insensitive), or undefined. */
export function bearerCredential(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/** The edge's id of one client request, the same on each retry the load balancer makes of it. */
export const EDGE_REQUEST_ID_HEADER = 'x-edge-request-id';

/**
 * The id to admit under: the edge's request id when trusted and well-formed; else, with `own`,
 * one of this gateway's (a request no load balancer retries), so that its admission too leaves
 * the mark a replay into a new Redis primary looks for (failover-replay.ts); else none.
 */
function admissionIdOf(headers: IncomingHttpHeaders, trusted: boolean, own: boolean): string | undefined {
  const value = trusted ? headers[EDGE_REQUEST_ID_HEADER] : undefined;
  if (typeof value === 'string' && ADMISSION_ID.test(value)) return value;
  return own ? `gw.${randomUUID()}` : undefined;
}

/** What an authenticated request carries on to its handler. */
export const quotaOf = (res: Response): QuotaState | undefined => res.locals.quota as QuotaState | undefined;

/** The value the admission read along (createAdmitter's readAlong), when it was asked to. */
export const readAlongOf = (res: Response): string | undefined => res.locals.readAlong as string | undefined;

/** Counted requests this request was charged (1 unless a handler before set more, e.g. an export). */
export const unitsOf = (res: Response): number => (res.locals.units as number | undefined) ?? 1;

/** Refusals are about this moment and this key: never cache them. (Data responses keep the catalogue's own caching headers.) */
function refuseWith(res: Response, next: NextFunction, error: Error): void {
  res.setHeader('Cache-Control', 'no-store');
  next(error);
}

export interface ApiKeyAuthOptions {
  /** What the route requires of the key (a scope, `me`, or `any`); default `any`. */
  access?: RouteAccess;
  trustEdgeRequestId?: boolean;
  /** Admit a request without a (trusted) edge request id under an id of the gateway's own. */
  ownAdmissionIds?: boolean;
  /** The edge's public origin: a secret key from a page on it (the /docs "try it") is not refused. */
  publicOrigin?: string;
}

/** A refusal of a live key that counted nothing: 401 (expired, rolled) or 403 (not allowed here). */
function keyRefusal(admission: Admission & { outcome: 'key_expired' | 'key_rolled' | 'not_allowed' }, req: Request, access: RouteAccess) {
  switch (admission.outcome) {
    case 'key_expired':
      return new KeyExpiredError(admission.expiredAt);
    case 'key_rolled':
      return new KeyRolledError(admission.successorHint, admission.retiredAt);
    default:
      if (admission.reason === 'origin')
        return new KeyForbiddenError('origin_not_allowed', FORBIDDEN_DETAIL.origin_not_allowed(pageOriginOf(req)));
      if (admission.reason === 'limit') {
        return new ValidationError([{ name: 'limit', reason: `must be at most ${admission.maxLimit ?? 0} with a publishable key` }]);
      }
      return admission.kind === 'publishable'
        ? new KeyForbiddenError('endpoint_not_allowed', FORBIDDEN_DETAIL.endpoint_not_allowed)
        : new KeyForbiddenError('insufficient_scope', FORBIDDEN_DETAIL.insufficient_scope(access));
  }
}

/** The 429 of a key over one of its limits: the daily quota, the burst bucket or (publishable keys) the visitor's bucket. */
function rateLimitRefusal(
  admission: Admission & { outcome: 'daily_quota_exceeded' | 'burst_limit_exceeded' | 'visitor_limit_exceeded' },
  units: number,
): RateLimitedError {
  switch (admission.outcome) {
    case 'daily_quota_exceeded': {
      const resets = new Date(admission.quota.resetsAt).toISOString();
      return new RateLimitedError(
        admission.retryAfterSeconds,
        units > 1
          ? `This request costs ${units} requests of the daily quota of ${admission.quota.limit}; ${admission.quota.remaining} are left until ${resets}. Narrow it (e.g. updated_since) or wait for the reset.`
          : `The daily quota of ${admission.quota.limit} requests is used up; it resets at ${resets}.`,
        'daily_quota_exceeded',
      );
    }
    case 'burst_limit_exceeded':
      return new RateLimitedError(admission.retryAfterSeconds, 'Too many requests in a short time; slow down.', 'burst_limit_exceeded');
    default:
      return new RateLimitedError(
        admission.retryAfterSeconds,
        'Too many requests from this visitor in a short time; slow down (other visitors are not affected).',
        'visitor_limit_exceeded',
      );
  }
}

/** The metric outcome of a 429: decided by Redis, or locally while it was unreachable. */
function refusalOutcome(
  outcome: 'daily_quota_exceeded' | 'burst_limit_exceeded' | 'visitor_limit_exceeded',
  local: boolean,
): AdmissionOutcome {
  if (local) return outcome === 'daily_quota_exceeded' ? 'quota_exceeded_locally' : 'local_allowance_exhausted';
  return outcome === 'daily_quota_exceeded' ? 'quota_exceeded' : outcome;
}

/**
 * Authenticates the API key and, in 'admit' mode, charges the request against the daily quota
 * and the token bucket, all in one Redis round trip. Missing, malformed, unknown and revoked keys
 * get the same 401; Redis trouble fails closed with 503. The key itself is never logged. A request
 * that costs several counted requests (res.locals.units, set before this runs) is charged whole
 * or refused whole. With `trustEdgeRequestId` (TRUST_EDGE_REQUEST_ID) a request is admitted under
 * its X-Edge-Request-Id, so the edge's retry of it on another instance is not counted again.
 */
export function apiKeyAuth(admit: Admitter, mode: 'admit' | 'peek', options: ApiKeyAuthOptions = {}): RequestHandler {
  const trusted = options.trustEdgeRequestId ?? false;
  const own = mode === 'admit' && (options.ownAdmissionIds ?? false);
  const access = options.access ?? 'any';
  const publicOrigin = options.publicOrigin ?? '';
  // The counter's labels, made once per mode rather than an object per request.
  const labels = new Map<AdmissionOutcome, { mode: 'admit' | 'peek'; outcome: AdmissionOutcome }>();
  const counted = (outcome: AdmissionOutcome) => {
    let pair = labels.get(outcome);
    if (!pair) labels.set(outcome, (pair = { mode, outcome }));
    admissions.inc(pair);
  };
  return async (req, res, next) => {
    const apiKey = bearerCredential(req.headers);
    if (apiKey === undefined) {
      counted('missing_key');
      refuseWith(res, next, new UnauthorizedError('Send your API key as "Authorization: Bearer <key>".', REALM));
      return;
    }
    const kind = keyKindOf(apiKey);
    // A secret key from someone else's page has leaked into it: refused before Redis, so nothing
    // is counted (the decision rests on the key's shape and the request alone).
    const origin = req.headers.origin;
    if (kind === 'secret' && origin !== undefined && !isOwnOrigin(origin, req, publicOrigin)) {
      counted('secret_key_in_browser');
      refuseWith(res, next, new KeyForbiddenError('secret_key_in_browser', FORBIDDEN_DETAIL.secret_key_in_browser(origin)));
      return;
    }
    const facts =
      kind === 'publishable'
        ? { access, origin: pageOriginOf(req) ?? '', limit: requestedLimitOf(req) ?? 0, clientAddress: clientAddressOf(req) }
        : { access, clientAddress: clientAddressOf(req) };
    let admission: Admission;
    try {
      admission = await timedRedisCall(mode, () => admit(apiKey, mode, unitsOf(res), admissionIdOf(req.headers, trusted, own), facts));
    } catch (error) {
      counted('redis_unavailable');
      refuseWith(res, next, new ServiceUnavailableError('Requests cannot be admitted right now; try again shortly.', error, 1));
      return;
    }
    if (admission.outcome === 'invalid_key') {
      counted(admission.reason === 'malformed' ? 'malformed_key' : admission.reason === 'unknown' ? 'unknown_key' : 'revoked');
      req.log?.debug({ reason: admission.reason }, 'api key rejected');
      refuseWith(res, next, new UnauthorizedError('The API key is not valid.', `${REALM}, error="invalid_token"`));
      return;
    }
    if (admission.outcome === 'key_expired' || admission.outcome === 'key_rolled' || admission.outcome === 'not_allowed') {
      counted(admission.outcome === 'not_allowed' ? `not_allowed_${admission.reason}` : admission.outcome);
      refuseWith(res, next, keyRefusal(admission, req, access));
      return;
    }
    setRateLimitHeaders(
      res,
      admission.quota.local ? { ...admission.quota, approximate: true } : admission.quota,
      admission.outcome === 'burst_limit_exceeded' || admission.outcome === 'visitor_limit_exceeded'
        ? admission.retryAfterSeconds
        : undefined,
      admission.outcome === 'visitor_limit_exceeded' ? 'visitor' : 'burst',
    );
    res.locals.quota = admission.quota;
    // What the admitter was asked to read along (the edge cache's generation counter).
    if (admission.readAlong !== undefined) res.locals.readAlong = admission.readAlong;
    switch (admission.outcome) {
      case 'daily_quota_exceeded':
      case 'burst_limit_exceeded':
      case 'visitor_limit_exceeded':
        counted(refusalOutcome(admission.outcome, admission.quota.local !== undefined));
        refuseWith(res, next, rateLimitRefusal(admission, unitsOf(res)));
        return;
      default:
        counted(admission.quota.local ? 'admitted_locally' : 'admitted');
        // Rare and worth seeing: the edge retried a request another instance had admitted
        // (it died or closed before answering); counted once.
        if (admission.outcome === 'admitted' && admission.repeat)
          req.log?.warn({ key_id: admission.quota.keyId }, 'edge retry of an admitted request: not counted again');
        next();
    }
  };
}
