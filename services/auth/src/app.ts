import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type Provider from 'oidc-provider';
import { GrantStore, KeyStore, LoginThrottle, RevocationStore, UserStore, type ScryptParams } from '@fragrance/identity';
import {
  Lifecycle,
  notFoundHandler,
  probeRoutes,
  problemHandler,
  requestLogger,
  ServiceUnavailableError,
  type Logger,
} from '@fragrance/http';
import { httpMetrics } from '@fragrance/metrics';
import { isRedisUnavailableError } from '@fragrance/redis';
import { traceContext } from '@fragrance/tracing';
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

/**
 * The authorization server: oidc-provider for the protocol endpoints, Express around it for
 * health, the sign-in and consent pages, static assets and the few policies oidc-provider
 * leaves to us (default scope, registration throttle, JWT revocation). Keys come from Redis
 * (generated on first start), so restarts and other instances sign with the same keys.
 */
export async function buildApp(deps: AuthDeps): Promise<AuthService> {
  const { redis, prefix, logger } = deps;
  const keys = new KeyStore(redis, { prefix });
  const [signingKeys, cookieKeys] = await Promise.all([keys.signingKeys(), keys.cookieKeys()]);
  const users = new UserStore(redis, { prefix, ...(deps.scrypt ? { scrypt: deps.scrypt } : {}) });
  const revocations = new RevocationStore(redis, { prefix });
  const throttle = new LoginThrottle(redis, { prefix, ...deps.login });
  const grants = new GrantStore(redis, { prefix, revocations, accessTokenTtlSeconds: deps.ttl.accessToken });

  const provider = createProvider({
    issuer: deps.issuer,
    resource: deps.resource,
    redis,
    prefix,
    users,
    revocations,
    grants,
    signingKeys,
    cookieKeys,
    ttl: deps.ttl,
    clock: deps.clock ?? Date.now,
    logger,
    ...(deps.cimd ? { cimd: deps.cimd } : {}),
  });
  observeProvider(provider);
  const publicJwks = {
    keys: signingKeys.map(({ kty, n, e, kid, alg, use }) => ({
      kty: kty!,
      n: n!,
      e: e!,
      kid,
      alg,
      use,
    })),
  };

  const secure = deps.issuer.startsWith('https:');
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  // The OAuth endpoints are oidc-provider's, not express routes: labelled by these paths.
  app.use(traceContext(), httpMetrics({ mounts: OAUTH_METRIC_PATHS }));
  app.use(requestLogger(logger));
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
  app.use((_req, _res, next) => {
    next(
      redis.status === 'ready'
        ? undefined
        : new ServiceUnavailableError(STORAGE_UNAVAILABLE.detail, undefined, STORAGE_UNAVAILABLE.retryAfterSeconds),
    );
  });
  app.use(ASSETS_PATH, express.static(ASSETS_DIR, { maxAge: '1h', index: false, fallthrough: false }));
  // One sign-in flow, on two pages, each with its own CSRF cookie path and page headers.
  const interactionCsrf = createCsrf(cookieKeys[0]!, secure);
  const accountCsrf = createCsrf(cookieKeys[0]!, secure, '/account');
  const signIn = (csrf: typeof accountCsrf, send: typeof sendPage) => createSignIn({ users, throttle, csrf, logger, send });
  app.use(
    interactionRoutes({
      provider,
      users,
      signIn: signIn(interactionCsrf, sendPage),
      csrf: interactionCsrf,
      resource: deps.resource,
    }),
  );
  app.use(
    accountRoutes({
      redis,
      prefix,
      users,
      grants,
      signIn: signIn(accountCsrf, sendAccountPage),
      csrf: accountCsrf,
      cookieKeys,
      sessionTtlSeconds: deps.ttl.session,
      secure,
      logger,
    }),
  );
  app.use(defaultScope());
  app.use(registrationBodyLimit(CLIENT_LIMITS.registrationBodyBytes));
  app.use(registrationGuard(redis, prefix, deps.registrationLimitPerHour));
  app.use(tokenRevocation({ provider, issuer: deps.issuer, jwks: publicJwks, logger }));
  // Everything else under /oauth and the metadata documents belong to oidc-provider.
  const oidc = provider.callback();
  // Not mounted with a path: oidc-provider would take the mount path as its own prefix.
  app.use((req, res, next) => {
    if (OIDC_PATHS.test(req.path)) void oidc(req, res);
    else next();
  });
  app.use(notFoundHandler);
  // Redis failing mid-request (a command timed out while a failover ran) is a 503, as when it is
  // known to be away above; oidc-provider's own storage errors are mapped in adapter.ts.
  app.use((error: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
    next(
      isRedisUnavailableError(error)
        ? new ServiceUnavailableError(STORAGE_UNAVAILABLE.detail, undefined, STORAGE_UNAVAILABLE.retryAfterSeconds)
        : error,
    );
  });
  app.use(problemHandler);
  return { app, provider, users, revocations, grants, keys };
}
