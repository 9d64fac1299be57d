import type { RequestHandler } from 'express';
import { AppError, RateLimitedError, ServiceUnavailableError, UnauthorizedError } from '@fragrance/http';
import {
  InsufficientScopeError,
  InvalidTokenError,
  QuotaExceededError,
  RevokedTokenError,
  VerificationUnavailableError,
  type Caller,
  type TokenVerifier,
} from './verify-token.ts';
import { tokenRejections, type TokenRejectionReason } from '../metrics.ts';

export interface BearerOptions {
  verify: TokenVerifier;
  /** Absolute URL of this resource's RFC 9728 metadata, named in every challenge. */
  resourceMetadataUrl: string;
  requiredScope: string;
}

/** Locals the bearer middleware leaves for the MCP route. */
export interface AuthLocals {
  caller: Caller;
}

function challenge(options: BearerOptions, error?: { code: 'invalid_token' | 'insufficient_scope'; description: string }): string {
  const params = [
    ...(error ? [`error="${error.code}"`, `error_description="${error.description}"`] : []),
    `scope="${options.requiredScope}"`,
    `resource_metadata="${options.resourceMetadataUrl}"`,
  ];
  return `Bearer ${params.join(', ')}`;
}

/** 401 `invalid_token` (RFC 6750 §3.1): the token is malformed, expired, forged or revoked. */
class InvalidTokenProblem extends AppError {
  constructor(challengeHeader: string, detail: string) {
    super(401, 'invalid_token', 'Unauthorized', detail, { headers: { 'WWW-Authenticate': challengeHeader } });
  }
}

/** 403 `insufficient_scope` (RFC 6750 §3.1): a good token without the scope; names the one needed. */
class InsufficientScopeProblem extends AppError {
  constructor(challengeHeader: string, detail: string, requiredScope: string) {
    super(403, 'insufficient_scope', 'Forbidden', detail, {
      headers: { 'WWW-Authenticate': challengeHeader },
      extensions: { required_scope: requiredScope },
    });
  }
}

/**
 * RFC 6750 + MCP authorization: no credential → 401 naming the metadata (no error code, §3.1);
 * a bad credential → 401 `invalid_token`; a good one without the scope → 403 `insufficient_scope`.
 * The verified caller is stored on res.locals and as `req.auth`, where the SDK transport reads it.
 */
function rejectionReason(error: unknown): TokenRejectionReason {
  if (error instanceof RevokedTokenError) return 'revoked';
  if (error instanceof InvalidTokenError) return 'invalid';
  if (error instanceof InsufficientScopeError) return 'insufficient_scope';
  return 'unavailable';
}

export function requireBearer(options: BearerOptions): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (!header) {
      tokenRejections.inc({ reason: 'missing' });
      throw new UnauthorizedError('An OAuth access token is required.', challenge(options));
    }
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    if (!match?.[1]) {
      tokenRejections.inc({ reason: 'malformed' });
      throw invalidToken(options, 'The Authorization header is not a Bearer token.');
    }
    try {
      const info = await options.verify(match[1]);
      (res.locals as AuthLocals).caller = info.extra.caller;
      Object.assign(req, { auth: info });
    } catch (error) {
      // A machine client over its daily quota: a good token, refused for now (not a rejection).
      if (error instanceof QuotaExceededError) throw new RateLimitedError(error.retryAfterSeconds, error.message, 'daily_quota_exceeded');
      tokenRejections.inc({ reason: rejectionReason(error) });
      if (error instanceof InvalidTokenError) throw invalidToken(options, error.message);
      if (error instanceof InsufficientScopeError) {
        throw new InsufficientScopeProblem(
          challenge(options, { code: 'insufficient_scope', description: error.message }),
          error.message,
          error.scope,
        );
      }
      if (error instanceof VerificationUnavailableError) {
        throw new ServiceUnavailableError('Access tokens cannot be verified right now; retry shortly.', error);
      }
      throw error;
    }
    next();
  };
}

function invalidToken(options: BearerOptions, description: string): InvalidTokenProblem {
  return new InvalidTokenProblem(challenge(options, { code: 'invalid_token', description }), description);
}
