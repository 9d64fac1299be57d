import { LRUCache } from 'lru-cache';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { MACHINE_CLIENT_ID, type MachineAdmission, type RevocableClaims } from '@fragrance/identity';
import { REQUIRED_SCOPE, resourceOf, type McpConfig } from '../config.ts';

/** The token is missing something or is not acceptable: 401 invalid_token. */
export class InvalidTokenError extends Error {}
/** The token was revoked (signed out, refresh-token reuse): 401 invalid_token too. */
export class RevokedTokenError extends InvalidTokenError {}
/** The token is fine but lacks a scope: 403 insufficient_scope. */
export class InsufficientScopeError extends Error {
  readonly scope: string;
  constructor(scope: string) {
    super(`The token lacks the scope ${scope}.`);
    this.scope = scope;
  }
}
/** We could not decide (JWKS or Redis unreachable): 503, never a silent accept. */
export class VerificationUnavailableError extends Error {}
/** A machine client used up its quota for the day: 429 until the next UTC midnight. */
export class QuotaExceededError extends Error {
  readonly retryAfterSeconds: number;
  constructor(quotaPerDay: number, retryAfterSeconds: number) {
    super(`This client's quota of ${quotaPerDay} requests per day (UTC) is used up.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Counts a machine client's request against its quota (MachineClientStore in @fragrance/identity). */
export interface MachineClientCheck {
  admit(clientId: string): Promise<MachineAdmission>;
}

export interface RevocationCheck {
  isRevoked(claims: RevocableClaims): Promise<boolean>;
}

export interface TokenVerifierOptions {
  issuer: string;
  /** This server's resource identifier: the token's `aud` must contain it. */
  audience: string;
  /** Pinned JWS algorithm; anything else (including `none`) is refused. */
  algorithm: string;
  requiredScope: string;
  /** The auth service's key set (a remote JWKS URL or, in tests, any jose key resolver). */
  keys: string | JWTVerifyGetKey;
  revocations: RevocationCheck;
  /** Machine clients (client-credentials tokens): their quota and their existence, per request. */
  machineClients?: MachineClientCheck;
  /** Seconds of clock skew tolerated on exp/iat/nbf. */
  clockToleranceSeconds?: number;
  /** The clock (tests); default Date.now. */
  now?: () => number;
}

/**
 * A token whose signature and claims were checked is trusted again for at most this long without
 * a new signature check (an RSA verify is the costliest step of a request); never past its
 * expiry. The revocation record is still read on every request. Bounded so a withdrawn signing
 * key stops its tokens within a minute too.
 */
export const VERIFIED_TOKEN_TTL_MS = 60_000;
/** Most verified tokens remembered per process (oldest forgotten first). */
export const VERIFIED_TOKEN_ENTRIES = 10_000;

/** What the rest of the server learns about the caller from a verified token. */
export interface Caller {
  sub: string;
  clientId: string;
  grantId?: string;
  scopes: string[];
  /** A machine client acting for itself (client-credentials token: `sub` is the client, no grant). */
  machine?: true;
}

export type TokenVerifier = (token: string) => Promise<AuthInfo & { extra: { caller: Caller } }>;

/** jose errors that mean "we could not fetch the keys", as opposed to "the token is bad". */
const UNAVAILABLE_CODES = new Set(['ERR_JWKS_TIMEOUT']);

/**
 * Verifies an access token locally: signature against the auth service's JWKS with the pinned
 * algorithm, `typ` at+jwt (RFC 9068, so an ID token cannot be replayed as an access token),
 * issuer, audience, expiry, then the revocation record (JWTs outlive a revoked grant otherwise).
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const keys =
    typeof options.keys === 'string'
      ? createRemoteJWKSet(new URL(options.keys), { timeoutDuration: 3_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 })
      : options.keys;

  const now = options.now ?? Date.now;
  const toleranceSeconds = options.clockToleranceSeconds ?? 5;
  // Keyed by the exact token text: only the very bytes that were verified are trusted again.
  // Expiry stays our own `until` (read on the verifier's clock); lru-cache only bounds the count.
  const verified = new LRUCache<string, { payload: JWTPayload; until: number }>({ max: VERIFIED_TOKEN_ENTRIES });

  const checkedPayload = async (token: string): Promise<JWTPayload> => {
    const at = now();
    const known = verified.get(token);
    if (known && at < known.until) return known.payload;
    if (known) verified.delete(token);
    let payload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: [options.algorithm],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat', 'sub', 'client_id'],
        clockTolerance: toleranceSeconds,
        currentDate: new Date(at),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && !UNAVAILABLE_CODES.has(error.code)) {
        throw new InvalidTokenError(describeJoseError(error), { cause: error });
      }
      throw new VerificationUnavailableError('The signing keys could not be fetched.', { cause: error });
    }
    // Until jose itself would refuse it as expired (exp is required, so a number here).
    const until = Math.min(at + VERIFIED_TOKEN_TTL_MS, ((payload.exp ?? 0) + toleranceSeconds) * 1000);
    verified.set(token, { payload, until });
    return payload;
  };

  return async (token) => {
    const payload = await checkedPayload(token);

    const sub = payload.sub;
    const clientId = payload.client_id;
    const gid = payload.gid;
    if (typeof sub !== 'string' || !sub || typeof clientId !== 'string' || !clientId) {
      throw new InvalidTokenError('The token lacks a subject or client.');
    }
    const grantId = typeof gid === 'string' && gid ? gid : undefined;

    let revoked: boolean;
    try {
      revoked = await options.revocations.isRevoked({ sub, iat: payload.iat, ...(grantId ? { gid: grantId } : {}) });
    } catch (error) {
      throw new VerificationUnavailableError('The revocation record could not be read.', { cause: error });
    }
    if (revoked) throw new RevokedTokenError('The token has been revoked.');

    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    if (!scopes.includes(options.requiredScope)) throw new InsufficientScopeError(options.requiredScope);

    const machine = !grantId && sub === clientId && MACHINE_CLIENT_ID.test(clientId);
    if (machine && options.machineClients) await admitMachine(options.machineClients, clientId);
    const caller: Caller = { sub, clientId, scopes, ...(grantId ? { grantId } : {}), ...(machine ? { machine: true as const } : {}) };
    return {
      token,
      clientId,
      scopes,
      expiresAt: payload.exp,
      resource: new URL(options.audience),
      extra: { caller },
    };
  };
}

/** One more request of a machine client: refused when the client is gone (revoked) or over its quota. */
async function admitMachine(machineClients: MachineClientCheck, clientId: string): Promise<void> {
  let admission: MachineAdmission;
  try {
    admission = await machineClients.admit(clientId);
  } catch (error) {
    throw new VerificationUnavailableError('The client quota could not be read.', { cause: error });
  }
  if (admission.allowed) return;
  if (admission.reason === 'unknown') throw new RevokedTokenError('The client has been revoked.');
  throw new QuotaExceededError(admission.quotaPerDay, admission.retryAfterSeconds);
}

/** Short, fixed descriptions (they end up in a quoted WWW-Authenticate parameter). */
function describeJoseError(error: InstanceType<typeof joseErrors.JOSEError>): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The token was not issued for this resource.';
    if (error.claim === 'iss') return 'The token was not issued by the expected authorization server.';
    return `The token's ${error.claim} claim is not acceptable.`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The token is not signed with the expected algorithm.';
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return 'The token signature is not valid.';
  }
  return 'The token is malformed.';
}

/**
 * The verifier a service configured by `config` uses: its issuer, its audience, its one algorithm.
 * `clockToleranceSeconds` is for tests that wait for a token's expiry to bite.
 */
export function tokenVerifierFor(
  config: McpConfig,
  revocations: RevocationCheck,
  { machineClients, clockToleranceSeconds }: { machineClients?: MachineClientCheck; clockToleranceSeconds?: number } = {},
): TokenVerifier {
  return createTokenVerifier({
    ...(machineClients ? { machineClients } : {}),
    ...(clockToleranceSeconds !== undefined ? { clockToleranceSeconds } : {}),
    issuer: config.OAUTH_ISSUER,
    audience: resourceOf(config),
    algorithm: config.ACCESS_TOKEN_ALG,
    requiredScope: REQUIRED_SCOPE,
    keys: config.JWKS_URL,
    revocations,
  });
}
