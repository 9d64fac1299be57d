import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, RequestHandler, Response } from 'express';
import { ADMISSION_ID, type Admitter, type QuotaState } from '@fragrance/api-keys';
import { RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '@fragrance/http';
import { admissions, timedRedisCall, type AdmissionOutcome } from './metrics.ts';
import { setRateLimitHeaders } from './rate-limit-headers.ts';

const REALM = 'Bearer realm="fragrance-catalogue"';

/** The credential of `Authorization: Bearer <key>` (scheme case-insensitive), or undefined. */
export function bearerCredential(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/** The edge's id of one client request, the same on each retry the load balancer makes of it. */
export const EDGE_REQUEST_ID_HEADER = 'x-edge-request-id';

/** The edge request id to admit under: only when trusted, and only a well-formed one (else counted as usual). */
function edgeRequestId(headers: IncomingHttpHeaders, trusted: boolean): string | undefined {
  const value = trusted ? headers[EDGE_REQUEST_ID_HEADER] : undefined;
  return typeof value === 'string' && ADMISSION_ID.test(value) ? value : undefined;
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

/**
 * Authenticates the API key and, in 'admit' mode, charges the request against the daily quota
 * and the token bucket, all in one Redis round trip. Missing, malformed, unknown and revoked keys
 * get the same 401; Redis trouble fails closed with 503. The key itself is never logged. A request
 * that costs several counted requests (res.locals.units, set before this runs) is charged whole
 * or refused whole. With `trustEdgeRequestId` (TRUST_EDGE_REQUEST_ID) a request is admitted under
 * its X-Edge-Request-Id, so the edge's retry of it on another instance is not counted again.
 */
export function apiKeyAuth(admit: Admitter, mode: 'admit' | 'peek', options: { trustEdgeRequestId?: boolean } = {}): RequestHandler {
  const trusted = options.trustEdgeRequestId ?? false;
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
    let admission: Awaited<ReturnType<Admitter>>;
    try {
      admission = await timedRedisCall(mode, () => admit(apiKey, mode, unitsOf(res), edgeRequestId(req.headers, trusted)));
    } catch (error) {
      counted('redis_unavailable');
      refuseWith(res, next, new ServiceUnavailableError('Requests cannot be admitted right now; try again shortly.', error));
      return;
    }
    if (admission.outcome === 'invalid_key') {
      counted(admission.reason === 'malformed' ? 'malformed_key' : admission.reason === 'unknown' ? 'unknown_key' : 'revoked');
      req.log?.debug({ reason: admission.reason }, 'api key rejected');
      refuseWith(res, next, new UnauthorizedError('The API key is not valid.', `${REALM}, error="invalid_token"`));
      return;
    }
    setRateLimitHeaders(res, admission.quota, admission.outcome === 'burst_limit_exceeded' ? admission.retryAfterSeconds : undefined);
    res.locals.quota = admission.quota;
    // What the admitter was asked to read along (the edge cache's generation counter).
    if (admission.readAlong !== undefined) res.locals.readAlong = admission.readAlong;
    switch (admission.outcome) {
      case 'daily_quota_exceeded': {
        counted('quota_exceeded');
        const resets = new Date(admission.quota.resetsAt).toISOString();
        const units = unitsOf(res);
        refuseWith(
          res,
          next,
          new RateLimitedError(
            admission.retryAfterSeconds,
            units > 1
              ? `This request costs ${units} requests of the daily quota of ${admission.quota.limit}; ${admission.quota.remaining} are left until ${resets}. Narrow it (e.g. updated_since) or wait for the reset.`
              : `The daily quota of ${admission.quota.limit} requests is used up; it resets at ${resets}.`,
            'daily_quota_exceeded',
          ),
        );
        return;
      }
      case 'burst_limit_exceeded':
        counted('burst_limit_exceeded');
        refuseWith(
          res,
          next,
          new RateLimitedError(admission.retryAfterSeconds, 'Too many requests in a short time; slow down.', 'burst_limit_exceeded'),
        );
        return;
      default:
        counted('admitted');
        // Rare and worth seeing: the edge retried a request another instance had admitted
        // (it died or closed before answering); counted once.
        if (admission.outcome === 'admitted' && admission.repeat)
          req.log?.warn({ key_id: admission.quota.keyId }, 'edge retry of an admitted request: not counted again');
        next();
    }
  };
}
