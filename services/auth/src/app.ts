import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type Provider from 'oidc-provider';
import { GrantStore, KeyStore, LoginThrottle, RevocationStore, UserStore, type ScryptParams, type SigningJwk } from '@fragrance/identity';
import { Lifecycle, probeRoutes, ServiceUnavailableError, serviceApp, type Logger } from '@fragrance/http';
import { isRedisUnavailableError } from '@fragrance/redis';
import type { CimdFetchOptions } from './cimd.ts';
import { STORAGE_UNAVAILABLE } from './adapter.ts';
import { observeProvider } from './metrics.ts';
import { createProvider, type AuthTtl } from './provider.ts';
import { accountRoutes, sendAccountPage } from './routes/account.ts';
import { corsRoutes } from './routes/cors.ts';
import { createCsrf } from './routes/csrf.ts';
import { healthRoutes } from './routes/health.ts';
import { interactionRoutes, sendPage } from './routes/interaction.ts';
import { createSignIn } from './routes/sign-in.ts';
import { CLIENT_LIMITS } from './client-limits.ts';
import { defaultScope, registrationBodyLimit, registrationGuard, tokenRevocation } from './routes/oauth-edges.ts';
import { ASSETS_PATH } from './views/pages.ts';

export interface AuthDeps {
  /** {mcp_url}, no trailing slash. */
  issuer: string;
  /** The MCP server's resource id (token audience). */
  resource: string;
  redis: Redis;
  prefix: string;
  logger: Logger;
  ttl: AuthTtl;
  /** The time (ms) refresh-token expiry is judged by; Date.now unless a test moves it. */
  clock?: () => number;
  registrationLimitPerHour: number;
  login: { perAccount: number; perAddress: number; windowSeconds: number };
  /** Express `trust proxy` (whose X-Forwarded-For counts as the client address). */
  trustProxy: string | boolean;
  cimd?: CimdFetchOptions & { enabled?: boolean; maxBytes?: number };
  /** Tests only: a cheaper password hash. */
  scrypt?: ScryptParams;
  /** Draining state for /health/ready (main.ts shares it with serve()); a fresh one when absent. */
  lifecycle?: Lifecycle;
}

export interface AuthService {
  app: Express;
  provider: Provider;
  users: UserStore;
  revocations: RevocationStore;
  grants: GrantStore;
  keys: KeyStore;
}

const OIDC_PATHS = /^\/(oauth\/|\.well-known\/(oauth-authorization-server|openid-configuration)$)/;
const OAUTH_METRIC_PATHS = [
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/register',
  '/oauth/revoke',
  '/oauth/jwks',
  '/oauth/session/end',
  '/oauth/userinfo',
  '/oauth/par',
  '/oauth/interaction',
  '/oauth/assets',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
];
const ASSETS_DIR = fileURLToPath(new URL('../assets/', import.meta.url));

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const storageUnavailable = () => new ServiceUnavailableError(STORAGE_UNAVAILABLE.detail, undefined, STORAGE_UNAVAILABLE.retryAfterSeconds);

/** The public half of the signing keys (what /oauth/jwks publishes), for our own JWT checks. */
const publicJwksOf = (signingKeys: readonly SigningJwk[]) => ({
  keys: signingKeys.map(({ kty, n, e, kid, alg, use }) => ({ kty: kty!, n: n!, e: e!, kid, alg, use })),
});

interface Stores {
  keys: KeyStore;
  users: UserStore;
  revocations: RevocationStore;
  throttle: LoginThrottle;
  grants: GrantStore;
}

function storesOf(deps: AuthDeps): Stores {
  const { redis, prefix } = deps;
  const revocations = new RevocationStore(redis, { prefix });
  return {
    keys: new KeyStore(redis, { prefix }),
    users: new UserStore(redis, { prefix, ...(deps.scrypt ? { scrypt: deps.scrypt } : {}) }),
    revocations,
    throttle: new LoginThrottle(redis, { prefix, ...deps.login }),
    grants: new GrantStore(redis, { prefix, revocations, accessTokenTtlSeconds: deps.ttl.accessToken }),
  };
}

/** Security headers, health and readiness, CORS, and 503 while Redis is away. */
function frontMiddleware(app: Express, deps: AuthDeps): void {
  const { redis } = deps;
  app.set('trust proxy', deps.trustProxy);
  app.use((_req, res, next) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    next();
  });
  app.use(healthRoutes(redis));
  const redisUp = async () => void (await redis.ping());
  app.use(probeRoutes({ lifecycle: deps.lifecycle ?? new Lifecycle(), required: { redis: redisUp }, timeoutMs: 1_000 }));
  // Before the Redis check: a preflight needs nothing but these headers.
  app.use(corsRoutes());
  // Every OAuth answer needs Redis; while it is away say so (503) rather than let oidc-provider
  // fail each request with a 500 after its own retries.
  app.use((_req, _res, next) => next(redis.status === 'ready' ? undefined : storageUnavailable()));
  app.use(ASSETS_PATH, express.static(ASSETS_DIR, { maxAge: '1h', index: false, fallthrough: false }));
}

/** The consent interaction and the account page: one sign-in flow, each page with its own CSRF cookie path and headers. */
function pageRoutes(app: Express, deps: AuthDeps, stores: Stores, provider: Provider, cookieKeys: readonly string[]): void {
  const { users, throttle, grants } = stores;
  const secure = deps.issuer.startsWith('https:');
  const interactionCsrf = createCsrf(cookieKeys[0]!, secure);
  const accountCsrf = createCsrf(cookieKeys[0]!, secure, '/account');
  const signIn = (csrf: typeof accountCsrf, send: typeof sendPage) => createSignIn({ users, throttle, csrf, logger: deps.logger, send });
  const interaction = { provider, users, signIn: signIn(interactionCsrf, sendPage), csrf: interactionCsrf, resource: deps.resource };
  app.use(interactionRoutes(interaction));
  app.use(
    accountRoutes({
      redis: deps.redis,
      prefix: deps.prefix,
      users,
      grants,
      signIn: signIn(accountCsrf, sendAccountPage),
      csrf: accountCsrf,
      cookieKeys,
      sessionTtlSeconds: deps.ttl.session,
      secure,
      logger: deps.logger,
    }),
  );
}

/** Our policies in front of oidc-provider, then oidc-provider for /oauth and the metadata documents. */
function oauthRoutes(app: Express, deps: AuthDeps, provider: Provider, signingKeys: readonly SigningJwk[]): void {
  app.use(defaultScope());
  app.use(registrationBodyLimit(CLIENT_LIMITS.registrationBodyBytes));
  app.use(registrationGuard(deps.redis, deps.prefix, deps.registrationLimitPerHour));
  app.use(tokenRevocation({ provider, issuer: deps.issuer, jwks: publicJwksOf(signingKeys), logger: deps.logger }));
  const oidc = provider.callback();
  // Not mounted with a path: oidc-provider would take the mount path as its own prefix.
  app.use((req, res, next) => {
    if (OIDC_PATHS.test(req.path)) void oidc(req, res);
    else next();
  });
}

/**
 * The authorization server: oidc-provider for the protocol endpoints, Express around it for
 * health, the sign-in and consent pages, static assets and the few policies oidc-provider
 * leaves to us (default scope, registration throttle, JWT revocation). Keys come from Redis
 * (generated on first start), so restarts and other instances sign with the same keys.
 */
export async function buildApp(deps: AuthDeps): Promise<AuthService> {
  const stores = storesOf(deps);
  const [signingKeys, cookieKeys] = await Promise.all([stores.keys.signingKeys(), stores.keys.cookieKeys()]);
  const provider = createProvider({
    issuer: deps.issuer,
    resource: deps.resource,
    redis: deps.redis,
    prefix: deps.prefix,
    users: stores.users,
    revocations: stores.revocations,
    grants: stores.grants,
    signingKeys,
    cookieKeys,
    ttl: deps.ttl,
    clock: deps.clock ?? Date.now,
    logger: deps.logger,
    ...(deps.cimd ? { cimd: deps.cimd } : {}),
  });
  observeProvider(provider);

  // The OAuth endpoints are oidc-provider's, not express routes: labelled by these paths.
  const app = serviceApp({ logger: deps.logger, metricMounts: OAUTH_METRIC_PATHS }, (routes) => {
    frontMiddleware(routes, deps);
    pageRoutes(routes, deps, stores, provider, cookieKeys);
    oauthRoutes(routes, deps, provider, signingKeys);
    // Redis failing mid-request (a command timed out while a failover ran) is a 503, as when it is
    // known to be away above; oidc-provider's own storage errors are mapped in adapter.ts.
    routes.use((error: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
      next(isRedisUnavailableError(error) ? storageUnavailable() : error);
    });
  });
  const { users, revocations, grants, keys } = stores;
  return { app, provider, users, revocations, grants, keys };
}
