// Test support: an in-memory OAuth client store, as an MCP host keeps it (the end-to-end test), and
// this server's app over HTTP with a test token (the surface test).
// The services as child processes (startService) and the form-driving user (FormUser) come from
// @fragrance/testkit.
import { createServer } from 'node:http';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthTokens } from '@modelcontextprotocol/client';
import type { Redis } from 'ioredis';
import { createLogger } from '@fragrance/http';
import { RevocationStore } from '@fragrance/identity';
import { buildApp } from '../src/app.ts';
import { tokenVerifierFor } from '../src/auth/verify-token.ts';
import { createCatalogue } from '../src/catalogue/catalogue.ts';
import { McpConfig, resourceOf } from '../src/config.ts';
import { createRateLimiter } from '../src/rate-limit.ts';
import { close, jwksServer, listen, mintToken, signingKey } from '../src/test-helpers.ts';

/** An in-memory OAuthClientProvider, as an MCP host would keep it. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly #redirect: string;
  constructor(redirect: string) {
    this.#redirect = redirect;
  }
  client?: OAuthClientInformationMixed;
  saved: OAuthTokens[] = [];
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.#redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** This MCP server's app over HTTP, in process, with a token of a throw-away signing key (see startMcpOverHttp). */
export interface McpOverHttp {
  /** The /mcp endpoint. */
  url: URL;
  /** A valid access token (catalogue:read) for `url`. */
  token: string;
  close(): Promise<void>;
}

/**
 * The real app (Host/Origin checks, token verification against a JWKS, revocation lookup, rate
 * limit, both protocol legs of the /mcp route) in this process, without the edge or the auth
 * service: the tokens are signed by a throw-away key whose JWKS is served here.
 */
export async function startMcpOverHttp(options: { redis: Redis; prefix: string; catalogueUrl: string }): Promise<McpOverHttp> {
  const key = await signingKey('stack');
  const jwks = await jwksServer([key]);
  const config = McpConfig.parse({
    MCP_URL: 'http://127.0.0.1:8080',
    OAUTH_ISSUER: 'http://issuer.stack.test',
    JWKS_URL: jwks.url,
    CATALOGUE_SERVICE_URL: options.catalogueUrl,
  });
  const catalogue = createCatalogue({ baseUrl: options.catalogueUrl, timeoutMs: 10_000 });
  const server = createServer(
    buildApp({
      config,
      logger: createLogger('mcp-stack', 'silent'),
      redis: options.redis,
      verify: tokenVerifierFor(config, new RevocationStore(options.redis, { prefix: options.prefix })),
      rateLimiter: createRateLimiter({ redis: options.redis, prefix: options.prefix, perMinute: 60_000, burst: 10_000 }),
      catalogue,
    }),
  );
  const base = await listen(server);
  const token = await mintToken(key, { issuer: config.OAUTH_ISSUER, audience: resourceOf(config), expiresIn: 3600 });
  return {
    url: new URL(`${base}/mcp`),
    token,
    close: async () => {
      await Promise.all([close(server), close(jwks.server)]);
      await catalogue.close();
    },
  };
}
