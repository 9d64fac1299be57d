import type { Redis } from 'ioredis';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { GrantStore, RevocationStore, SigningJwk, UserStore } from '@fragrance/identity';
import type { Logger } from '@fragrance/http';
import { isRedisUnavailableError } from '@fragrance/redis';
import { redisAdapterFactory, STORAGE_UNAVAILABLE, StorageUnavailableError } from './adapter.ts';
import { createCimdFetch, type CimdFetchOptions } from './cimd.ts';
import { CLIENT_METADATA_POLICY, compareHashedSecret } from './client-policy.ts';
import { errorPage } from './views/pages.ts';

/** The one resource scope: read access to the catalogue through the MCP server. */
export const CATALOGUE_SCOPE = 'catalogue:read';
/**
 * scopes_supported. openid and offline_access are always listed by oidc-provider and the MCP SDK
 * may send them; email is the scope of the `email` claim (in the id_token). Each has a line on
 * the consent page (SCOPE_DESCRIPTIONS in views/pages.ts; a test fails when one lacks it).
 */
export const SCOPES = ['openid', 'email', 'offline_access', CATALOGUE_SCOPE] as const;

/**
 * The `scope` of a token response: every scope granted, not only the access token's. The access
 * token carries the resource scope; the OIDC scopes (openid, email) went into the id_token; a
 * refresh token in the response is offline access, also when oidc-provider dropped the
 * `offline_access` parameter (it keeps it only with prompt=consent) since every client allowed
 * the refresh_token grant receives one. In the order of SCOPES.
 */
export function grantedScopes(parts: { accessToken?: string; oidc?: string; refreshToken: boolean }): string {
  const granted = new Set(`${parts.accessToken ?? ''} ${parts.oidc ?? ''}`.split(' ').filter(Boolean));
  if (parts.refreshToken) granted.add('offline_access');
  return [...granted].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(' ');
}
const rank = (scope: string) => {
  const i = (SCOPES as readonly string[]).indexOf(scope);
  return i === -1 ? SCOPES.length : i;
};

/** Lifetimes in seconds. Refresh tokens end `refreshTokenIdle` after their last use, and at the latest `refreshTokenMax` after consent. */
export interface AuthTtl {
  accessToken: number;
  authorizationCode: number;
  session: number;
  refreshTokenIdle: number;
  refreshTokenMax: number;
}

/** Longest life of a machine client's access token (seconds). */
const MACHINE_TOKEN_TTL_SECONDS = 3600;

export interface ProviderOptions {
  /** {mcp_url}: the issuer, with no trailing slash. */
  issuer: string;
  /** RFC 8707 resource id of the MCP server = the access token audience. */
  resource: string;
  redis: Redis;
  prefix: string;
  users: UserStore;
  revocations: RevocationStore;
  grants: GrantStore;
  signingKeys: readonly SigningJwk[];
  cookieKeys: readonly string[];
  ttl: AuthTtl;
  /** The time (ms) the adapter judges refresh-token expiry by; tests move it. */
  clock: () => number;
  cimd?: CimdFetchOptions & { enabled?: boolean; maxBytes?: number };
  logger: Logger;
}

/** The oidc-provider features in use: registration, revocation (metadata), client credentials, resource indicators, CIMD. */
function features(options: ProviderOptions): NonNullable<Configuration['features']> {
  const { resource, ttl } = options;
  return {
    devInteractions: { enabled: false },
    registration: {
      enabled: true,
      initialAccessToken: false,
      issueRegistrationAccessToken: false,
    },
    // Enabled for the metadata (revocation_endpoint); requests are answered by
    // routes/oauth-edges.ts tokenRevocation, which also handles our JWT access tokens.
    revocation: {
      enabled: true,
      allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
    },
    userinfo: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // No `resource` parameter still means the MCP server (DESIGN §4 "Known facts").
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator, client) => {
        if (indicator !== resource) throw new errors.InvalidTarget(`unknown resource; this server issues tokens for ${resource}`);
        return {
          scope: CATALOGUE_SCOPE,
          audience: resource,
          // A machine client asks again whenever it needs to: its tokens live an hour at most.
          accessTokenTTL: client.grantTypeAllowed('client_credentials')
            ? Math.min(ttl.accessToken, MACHINE_TOKEN_TTL_SECONDS)
            : ttl.accessToken,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
    clientIdMetadataDocument: {
      enabled: options.cimd?.enabled ?? true,
      ack: 'draft-02',
      cacheDuration: { min: 60, max: 3600 },
    },
  };
}

const ROUTES: NonNullable<Configuration['routes']> = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
  introspection: '/oauth/token/introspection',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
};

function ttls(ttl: AuthTtl): NonNullable<Configuration['ttl']> {
  return {
    AccessToken: ttl.accessToken,
    AuthorizationCode: ttl.authorizationCode,
    // Idle expiry from each rotation, never past the absolute lifetime from the chain's first
    // token (iiat). The adapter checks both again against its clock.
    RefreshToken: (_ctx, token) => {
      const now = Math.floor(Date.now() / 1000);
      const left = (token.iiat ?? now) + ttl.refreshTokenMax - now;
      return Math.max(1, Math.min(ttl.refreshTokenIdle, left));
    },
    Grant: ttl.refreshTokenMax,
    Session: ttl.session,
    Interaction: 3600,
    IdToken: 3600,
  };
}

/** oidc-provider's error page (a bad authorization request that cannot go back to the client): ours. */
function errorRenderer(logger: Logger): NonNullable<Configuration['renderError']> {
  return (ctx: KoaContextWithOIDC, out) => {
    logger.info({ error: out.error, description: out.error_description }, 'authorization error shown to the user');
    ctx.type = 'html';
    ctx.body = errorPage({
      title: 'This sign-in link cannot be used',
      message: out.error_description ?? out.error ?? 'The request is invalid.',
      code: out.error ?? 'invalid_request',
    });
  };
}

/** What we add around oidc-provider: hashed secrets, proxy headers, Retry-After, the full token scope, logs. */
function decorate(provider: Provider, logger: Logger): void {
  provider.Client.prototype.compareClientSecret = compareHashedSecret;
  // Behind the edge: believe X-Forwarded-Proto/Host so metadata shows public URLs.
  provider.proxy = true;
  // A 503 (storage unavailable: adapter.ts) tells the client when to try again.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(STORAGE_UNAVAILABLE.retryAfterSeconds));
  });
  // The token response names every granted scope (grantedScopes), not only the access token's.
  provider.use(async (koa, next) => {
    await next();
    const ctx = koa as unknown as KoaContextWithOIDC;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.oidc?.route !== 'token' || ctx.status !== 200 || typeof body?.access_token !== 'string') return;
    const { AuthorizationCode, RefreshToken, Grant } = ctx.oidc.entities;
    const source = AuthorizationCode ?? RefreshToken;
    if (!Grant || !source) return;
    const param = ctx.oidc.params?.scope;
    const asked = typeof param === 'string' ? new Set(param.split(' ')) : source.scopes;
    body.scope = grantedScopes({
      accessToken: typeof body.scope === 'string' ? body.scope : undefined,
      oidc: Grant.getOIDCScopeFiltered(asked),
      refreshToken: typeof body.refresh_token === 'string',
    });
  });
  provider.on('grant.revoked', (_ctx, grantId: string) => logger.info({ grantId }, 'grant revoked'));
  provider.on('server_error', (_ctx, err: Error) => logger.error({ err }, 'oidc-provider server error'));
}

/** The OAuth 2.1 authorization server of the MCP server (oidc-provider), every endpoint under /oauth. */
export function createProvider(options: ProviderOptions): Provider {
  const { issuer, users, ttl, logger } = options;

  const configuration: Configuration = {
    adapter: redisAdapterFactory({
      redis: options.redis,
      prefix: options.prefix,
      revocations: options.revocations,
      revocationTtlSeconds: ttl.accessToken + 60,
      grants: options.grants,
      sessionsValidSince: (accountId) => users.sessionsValidSince(accountId),
      refreshToken: { idleSeconds: ttl.refreshTokenIdle, maxSeconds: ttl.refreshTokenMax },
      clock: options.clock,
      logger,
    }),
    clients: [],
    // What a client registered with just client_name and redirect_uris gets: a public
    // client of the code flow that also receives refresh tokens (seed §2.4).
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'RS256',
    },
    // `none` for every dynamically registered client; the others for machine clients only
    // (registered by an operator, client_credentials grant): checked in the validator below.
    clientAuthMethods: ['none', 'private_key_jwt', 'client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    scopes: [...SCOPES],
    claims: { openid: ['sub'], email: ['email'] },
    pkce: { required: () => true },
    // CORS is decided per endpoint in routes/cors.ts (any origin, never credentials); the default
    // would refuse a browser client whose page is not on its redirect URI's origin.
    clientBasedCORS: () => true,
    // RFC 8414 §2: absent means client_secret_basic; public clients revoke with client_id only.
    discovery: { revocation_endpoint_auth_methods_supported: ['none'] },
    allowOmittingSingleRegisteredRedirectUri: false,
    cookies: {
      keys: [...options.cookieKeys],
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    jwks: {
      keys: options.signingKeys.map((k) => ({ ...k })),
    },
    features: features(options),
    fetch: createCimdFetch(options.cimd) as unknown as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': options.cimd?.maxBytes ?? 5 * 1024 },
    extraClientMetadata: CLIENT_METADATA_POLICY,
    extraTokenClaims: (_ctx, token) => (token.kind === 'AccessToken' ? { gid: token.grantId } : undefined),
    // Every refresh and code exchange reads the account outside the adapter: a Redis timeout here
    // is the storage being away (503 + Retry-After), not oidc-provider's 500 server_error.
    findAccount: async (_ctx, sub) => {
      const user = await users.findById(sub).catch((error: unknown) => {
        throw isRedisUnavailableError(error) ? new StorageUnavailableError(error) : error;
      });
      if (!user || user.disabled) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id, email: user.email }) };
    },
    // Refresh tokens for every client allowed the grant, not only with offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Rotated on every use; the adapter makes each rotation one atomic write and keeps a rotated
    // token usable until one of its successors is used (adapter.ts, docs/oauth.md).
    rotateRefreshToken: true,
    // Tokens belong to the grant, not to the browser session used to sign in.
    expiresWithSession: () => false,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    routes: ROUTES,
    ttl: ttls(ttl),
    renderError: errorRenderer(logger),
  };

  const provider = new Provider(issuer, configuration);
  decorate(provider, logger);
  return provider;
}
