import type { IncomingMessage } from 'node:http';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { Redis } from 'ioredis';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type Provider from 'oidc-provider';
import { PayloadTooLargeError, RateLimitedError, sendProblem } from '@fragrance/http';
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

/** Reads a body of unknown length, refusing it as soon as it passes `limit` bytes. */
async function readBounded(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn: false keeps the socket, so the 413 can still be sent.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Registration bodies are small JSON documents; a larger one is refused with 413
 * payload_too_large before oidc-provider reads it (its own limit is 56 KiB). A declared
 * Content-Length (always present behind the gateway, which buffers bodies) is judged without
 * reading; a chunked body is read here, bounded, and handed to oidc-provider as req.body, which
 * it reads when the stream is already consumed.
 */
export function registrationBodyLimit(maxBytes: number): RequestHandler {
  return (req, _res, next) => {
    if (req.method !== 'POST' || req.path !== '/oauth/register') return void next();
    const declared = req.headers['content-length'];
    if (declared !== undefined) return void next(Number(declared) > maxBytes ? new PayloadTooLargeError(maxBytes) : undefined);
    if (req.headers['transfer-encoding'] === undefined) return void next();
    readBounded(req, maxBytes).then((body) => {
      req.body = body;
      next();
    }, next);
  };
}

/** Dynamic registration is open to anyone, so each source address gets a budget per hour. */
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
          sendProblem(
            res,
            new RateLimitedError(
              ttl > 0 ? ttl : 3600,
              'Too many client registrations from this address; try again later.',
              'registration_rate_limited',
            ),
          );
          return;
        }
        next();
      })
      .catch(next);
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

interface ModelWithAdapter {
  adapter: { destroy(id: string): Promise<unknown>; revokeByGrantId(id: string): Promise<unknown> };
}

/**
 * RFC 7009 token revocation, served here rather than by oidc-provider: it cannot revoke our
 * JWT access tokens (it answers unsupported_token_type). Clients are public, identified by
 * client_id alone. A valid access token (JWT) or refresh token presented by the client it was
 * issued to revokes its whole grant (§2.1 allows that): refresh tokens, codes, the grant, and
 * the revocation record the MCP server checks (written by the Grant adapter). An unknown,
 * invalid or foreign token is answered 200 and changes nothing (§2.2).
 */
export function tokenRevocation(deps: RevokeDeps): Router {
  const { provider, issuer, logger } = deps;
  const keys = createLocalJWKSet(deps.jwks);
  const models = provider as unknown as Record<'RefreshToken' | 'AuthorizationCode' | 'AccessToken' | 'Grant', ModelWithAdapter>;
  const oauthError = (res: Response, status: number, error: string, description: string) =>
    void res.status(status).json({ error, error_description: description });

  const revokeGrant = async (grantId: string) => {
    await Promise.all([
      models.RefreshToken.adapter.revokeByGrantId(grantId),
      models.AuthorizationCode.adapter.revokeByGrantId(grantId),
      models.AccessToken.adapter.revokeByGrantId(grantId),
    ]);
    await models.Grant.adapter.destroy(grantId);
    logger.info({ grantId }, 'grant revoked at the revocation endpoint');
  };

  /** The grant a token belongs to, when it is valid and was issued to clientId. */
  const grantOf = async (token: string, clientId: string): Promise<string | undefined> => {
    if (token.split('.').length === 3) {
      try {
        const { payload } = await jwtVerify<Record<string, unknown>>(token, keys, {
          issuer,
          typ: 'at+jwt',
        });
        return payload.client_id === clientId && typeof payload.gid === 'string' ? payload.gid : undefined;
      } catch {
        return undefined;
      }
    }
    const refreshToken = await provider.RefreshToken.find(token).catch(() => undefined);
    return refreshToken?.clientId === clientId ? refreshToken.grantId : undefined;
  };

  const router = Router();
  router.post('/oauth/revoke', express.text({ type: () => true, limit: '56kb' }), (req, res, next) => {
    void (async () => {
      res.setHeader('Cache-Control', 'no-store');
      if (!req.is('application/x-www-form-urlencoded')) {
        return void oauthError(res, 400, 'invalid_request', 'only application/x-www-form-urlencoded bodies are supported');
      }
      const params = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
      for (const name of ['token', 'token_type_hint', 'client_id']) {
        if (params.getAll(name).length > 1) return void oauthError(res, 400, 'invalid_request', `${name} must not be repeated`);
      }
      const clientId = params.get('client_id');
      const client = clientId && !req.headers.authorization ? await provider.Client.find(clientId).catch(() => undefined) : undefined;
      if (!clientId || !client) return void oauthError(res, 401, 'invalid_client', 'client authentication failed');
      const token = params.get('token');
      if (!token) return void oauthError(res, 400, 'invalid_request', 'missing required parameter token');
      const grantId = await grantOf(token, clientId);
      if (grantId) await revokeGrant(grantId);
      res.status(200).end();
    })().catch(next);
  });
  return router;
}
