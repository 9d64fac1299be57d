import type { Redis } from 'ioredis';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { timingSafeEqual } from 'node:crypto';
import {
  hashClientSecret,
  MACHINE_CLIENT_ID,
  type GrantStore,
  type RevocationStore,
  type SigningJwk,
  type UserStore,
} from '@fragrance/identity';
import type { Logger } from '@fragrance/http';
import { redisAdapterFactory, STORAGE_UNAVAILABLE } from './adapter.ts';
import { createCimdFetch, type CimdFetchOptions } from './cimd.ts';
import { checkClientLimits } from './client-limits.ts';
import { checkRedirectUris } from './redirect-uris.ts';
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
const MACHINE_AUTH_METHODS = new Set(['private_key_jwt', 'client_secret_basic', 'client_secret_post']);

type Metadata = Record<string, unknown>;

/**
 * `fcs_machine` marks a client an operator registered (`ops clients create --machine`): never
 * accepted from a registration or a metadata document, and only on our machine client ids.
 */
function checkMachineMarker(ctx: KoaContextWithOIDC | undefined, value: unknown, metadata: Metadata): void {
  if (value === undefined) return;
  const route = ctx?.oidc?.route;
  if (value !== true || route === 'registration' || !MACHINE_CLIENT_ID.test(String(metadata.client_id))) {
    throw new errors.InvalidClientMetadata('fcs_machine is set by operators only (ops clients create --machine)');
  }
}

/** A machine client: the client_credentials grant only, authenticated with a key or a (hashed) secret. */
function checkMachineClient(metadata: Metadata): void {
  const grants = metadata.grant_types;
  if (!Array.isArray(grants) || grants.length !== 1 || grants[0] !== 'client_credentials') {
    throw new errors.InvalidClientMetadata('a machine client has the client_credentials grant only');
  }
  if (!MACHINE_AUTH_METHODS.has(String(metadata.token_endpoint_auth_method))) {
    throw new errors.InvalidClientMetadata('a machine client authenticates with private_key_jwt or a client secret');
  }
}

/**
 * A client of a person: public only, the code flow, loopback/https/private-use redirects.
 * Said here, naming what is allowed, because oidc-provider's own refusal of some methods
 * (private_key_jwt: "jwks or jwks_uri is mandatory") does not.
 */
function checkPublicClient(metadata: Metadata): void {
  const method = metadata.token_endpoint_auth_method;
  if (typeof method === 'string' && method !== 'none') {
    throw new errors.InvalidClientMetadata(`token_endpoint_auth_method must be "none" (public clients only), not "${method}"`);
  }
  if (Array.isArray(metadata.grant_types) && metadata.grant_types.includes('client_credentials')) {
    throw new errors.InvalidClientMetadata('grant_types: client_credentials is for machine clients an operator registers');
  }
  // oidc-provider decides whether to mint a secret from the raw registration body, before
  // clientDefaults make the client public; a public client must not receive one.
  if (method === 'none') {
    delete metadata.client_secret;
    delete metadata.client_secret_expires_at;
  }
  const uris = metadata.redirect_uris;
  if (uris === undefined) return; // oidc-provider reports the missing member itself
  if (!Array.isArray(uris) || uris.length === 0) throw new errors.InvalidClientMetadata('redirect_uris must be a non-empty array');
  const { errors: problems, impliedApplicationType } = checkRedirectUris(uris);
  if (problems.length > 0) throw new errors.InvalidClientMetadata(`redirect_uris: ${problems.join('; ')}`);
  metadata.application_type = impliedApplicationType;
}

/** Machine client secrets are stored as `sha256:<hex>` (hashClientSecret); the presented one is hashed and compared. */
function compareHashedSecret(this: { clientSecret?: string }, actual: string): boolean {
  const stored = Buffer.from(this.clientSecret ?? '');
  const presented = Buffer.from(hashClientSecret(actual));
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

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

/** The OAuth 2.1 authorization server of the MCP server (oidc-provider), every endpoint under /oauth. */
export function createProvider(options: ProviderOptions): Provider {
  const { issuer, resource, users, ttl, logger } = options;

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
    features: {
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
    },
    fetch: createCimdFetch(options.cimd) as unknown as Configuration['fetch'],
    fetchResponseBodyLimits: { 'client_id metadata document': options.cimd?.maxBytes ?? 5 * 1024 },
    extraClientMetadata: {
      // Declaring any extra property makes oidc-provider call the validator for every client
      // (registered, loaded or fetched as a metadata document) before its own checks.
      properties: ['software_id', 'software_version', 'fcs_machine'],
      validator(ctx, key, value, metadata) {
        if (key === 'fcs_machine') return void checkMachineMarker(ctx, value, metadata);
        if (value !== undefined && typeof value !== 'string') {
          throw new errors.InvalidClientMetadata(`${key} must be a string`);
        }
        if (key !== 'software_id') return;
        // InvalidClientMetadata answers invalid_redirect_uri when the description starts with
        // "redirect_uris", keeping the description (InvalidRedirectUri would replace it).
        const tooLarge = checkClientLimits(metadata);
        if (tooLarge) throw new errors.InvalidClientMetadata(tooLarge);
        if (metadata.fcs_machine === true) return void checkMachineClient(metadata);
        checkPublicClient(metadata);
      },
    },
    extraTokenClaims: (_ctx, token) => (token.kind === 'AccessToken' ? { gid: token.grantId } : undefined),
    findAccount: async (_ctx, sub) => {
      const user = await users.findById(sub);
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
    routes: {
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
    },
    ttl: {
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
    },
    renderError: (ctx: KoaContextWithOIDC, out) => {
      logger.info({ error: out.error, description: out.error_description }, 'authorization error shown to the user');
      ctx.type = 'html';
      ctx.body = errorPage({
        title: 'This sign-in link cannot be used',
        message: out.error_description ?? out.error ?? 'The request is invalid.',
        code: out.error ?? 'invalid_request',
      });
    },
  };

  const provider = new Provider(issuer, configuration);
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
  return provider;
}
