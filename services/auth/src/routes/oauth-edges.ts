import express, { Router } from 'express';
import type { Redis } from 'ioredis';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type Provider from 'oidc-provider';
import { RateLimitedError, sendProblem } from '@fragrance/http';
import type { Logger } from '@fragrance/http';
import { CATALOGUE_SCOPE } from '../provider.ts';

/**
 * A client that sends no `scope` (the MCP SDK when none is advertised, the conformance suite)
 * gets the catalogue scope instead of an access_denied (DESIGN §4 "Known facts").
 */
export function defaultScope(): Router {
  const router = Router();
  router.get('/oauth/authorize', (req, _res, next) => {
    const url = new URL(req.url, 'http://internal');
    if (!url.searchParams.get('scope')?.trim()) {
      url.searchParams.set('scope', CATALOGUE_SCOPE);
      req.url = `${url.pathname}${url.search}`;
    }
    next();
  });
  return router;
}

/**
 * Dynamic registration is open to anyone, so each source address gets a budget per hour.
 * A body without token_endpoint_auth_method means a public client: oidc-provider would
 * otherwise mint a client secret (it decides from the raw body, before clientDefaults apply).
 */
export function registrationGuard(redis: Redis, prefix: string, perHour: number): Router {
  const router = Router();
  router.post('/oauth/register', (req, res, next) => {
    const key = `${prefix}oidc:throttle:register:${req.ip ?? 'unknown'}`;
    redis
      .multi()
      .incr(key)
      .expire(key, 3600, 'NX')
      .ttl(key)
      .exec()
      .then((result) => {
        const count = Number(result?.[0]?.[1] ?? 0);
        const ttl = Number(result?.[2]?.[1] ?? 3600);
        if (count > perHour) {
          sendProblem(res, new RateLimitedError(ttl > 0 ? ttl : 3600, 'Too many client registrations from this address; try again later.', 'registration_rate_limited'));
          return;
        }
        next();
      })
      .catch(next);
  });
  router.post('/oauth/register', express.text({ type: 'application/json', limit: '56kb' }), (req, _res, next) => {
    if (typeof req.body !== 'string') return next();
    try {
      const metadata: unknown = JSON.parse(req.body);
      if (metadata && typeof metadata === 'object' && !Array.isArray(metadata) && !('token_endpoint_auth_method' in metadata)) {
        req.body = JSON.stringify({ ...metadata, token_endpoint_auth_method: 'none' });
      }
    } catch {
      // Left as is: oidc-provider answers invalid_request for a body that is not JSON.
    }
    next();
  });
  return router;
}

interface RevokeDeps {
  provider: Provider;
  issuer: string;
  /** Public signing keys: the JWT access tokens we issued verify against these. */
  jwks: JSONWebKeySet;
  logger: Logger;
}

type ModelWithAdapter = { adapter: { destroy(id: string): Promise<unknown>; revokeByGrantId(id: string): Promise<unknown> } };

/**
 * RFC 7009 for our JWT access tokens, which oidc-provider cannot revoke (it answers
 * unsupported_token_type): a valid JWT presented by the client it was issued to revokes its
 * whole grant (refresh tokens included, §2.1 allows that), and the Grant adapter writes the
 * revocation record the MCP server checks. Anything else goes on to oidc-provider untouched.
 */
export function jwtRevocation(deps: RevokeDeps): Router {
  const { provider, issuer, logger } = deps;
  const keys = createLocalJWKSet(deps.jwks);
  const router = Router();
  router.post('/oauth/revoke', express.text({ type: 'application/x-www-form-urlencoded', limit: '56kb' }), (req, res, next) => {
    void (async () => {
      if (typeof req.body !== 'string') return next();
      const params = new URLSearchParams(req.body);
      const token = params.get('token') ?? '';
      if (token.split('.').length !== 3 || req.headers.authorization) return next();
      res.setHeader('Cache-Control', 'no-store');
      const clientId = params.get('client_id');
      const client = clientId ? await provider.Client.find(clientId).catch(() => undefined) : undefined;
      if (!client || params.getAll('client_id').length !== 1) {
        res.status(401).json({ error: 'invalid_client', error_description: 'client authentication failed' });
        return;
      }
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify<Record<string, unknown>>(token, keys, { issuer, typ: 'at+jwt' }));
      } catch {
        // RFC 7009 §2.2: an invalid or expired token is not an error for the client.
        res.status(200).end();
        return;
      }
      if (payload.client_id === clientId && typeof payload.gid === 'string') {
        const gid = payload.gid;
        const models = provider as unknown as Record<'RefreshToken' | 'AuthorizationCode' | 'AccessToken' | 'Grant', ModelWithAdapter>;
        await Promise.all([
          models.RefreshToken.adapter.revokeByGrantId(gid),
          models.AuthorizationCode.adapter.revokeByGrantId(gid),
          models.AccessToken.adapter.revokeByGrantId(gid),
        ]);
        await models.Grant.adapter.destroy(gid);
        logger.info({ grantId: gid }, 'grant revoked through its access token');
      }
      res.status(200).end();
    })().catch(next);
  });
  return router;
}
