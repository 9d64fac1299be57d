import * as oauth from 'oauth4webapi';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect } from 'vitest';
import { FormUser } from '@fragrance/testkit';
import { authTest as test } from './testing/app.ts';

// End-to-end with an independent OAuth client library (oauth4webapi): discovery → registration
// → authorize (sign-in and consent over HTTP) → token → refresh → revoke.
const REDIRECT = 'http://127.0.0.1:53682/callback';
// The test issuer is plain http on loopback; oauth4webapi marks the opt-in deprecated to make it stand out.
// eslint-disable-next-line @typescript-eslint/no-deprecated
const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('authorization code flow with oauth4webapi', () => {
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let tokens: oauth.TokenEndpointResponse;

  test('discovers RFC 8414 metadata with every field the seed and MCP need', async ({ auth }) => {
    const issuer = new URL(auth.issuer);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as).toMatchObject({
      issuer: auth.issuer,
      authorization_endpoint: `${auth.issuer}/oauth/authorize`,
      token_endpoint: `${auth.issuer}/oauth/token`,
      registration_endpoint: `${auth.issuer}/oauth/register`,
      revocation_endpoint: `${auth.issuer}/oauth/revoke`,
      jwks_uri: `${auth.issuer}/oauth/jwks`,
      response_types_supported: ['code'],
      // client_credentials and the confidential methods are for operator-registered machine clients.
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt', 'client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['catalogue:read', 'openid', 'offline_access']));
    // The OpenID alias serves the same issuer.
    const oidc = (await (await fetch(`${auth.issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(oidc.issuer).toBe(auth.issuer);
  });

  test('registers a public client with just client_name and redirect_uris (RFC 7591)', async () => {
    const response = await oauth.dynamicClientRegistrationRequest(as, { client_name: 'E2E Client', redirect_uris: [REDIRECT] }, insecure);
    expect(response.status).toBe(201);
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered.client_id).toMatch(/^[\w-]{20,}$/);
    expect(registered).toMatchObject({
      client_name: 'E2E Client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(registered).not.toHaveProperty('client_secret');
    expect(registered).not.toHaveProperty('registration_access_token');
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  });

  test('authorizes with PKCE S256, signs in and consents, and returns code, state and iss (RFC 9207)', async ({ auth, person }) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource: auth.resource,
    }).toString();
    const user = new FormUser(auth.issuer);
    const final = await user.authorize(url.href, person);
    expect(final.status).toBe(303);
    const callback = new URL(final.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(auth.issuer);
    expect(callback.searchParams.get('code')).toBeTruthy();
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure);
    expect(response.headers.get('cache-control')).toContain('no-store');
    expect(response.headers.get('content-type')).toContain('application/json');
    const raw = (await response.clone().json()) as Record<string, unknown>;
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    // Seed §2.4: every field, as sent (oauth4webapi lower-cases token_type).
    expect(raw.token_type).toBe('Bearer');
    expect(raw.expires_in).toBe(86_400);
    expect(raw.access_token).toBe(tokens.access_token);
    expect(raw.refresh_token).toBe(tokens.refresh_token);
    expect(tokens.expires_in).toBe(86_400);
    expect(tokens.access_token).toBeTypeOf('string');
    expect(tokens.refresh_token).toBeTypeOf('string');
    expect(tokens.scope).toBe('offline_access catalogue:read'); // every granted scope; a refresh token is offline access
  });

  test('issues a JWT access token for the MCP resource with gid, sub and scope (RFC 9068, RFC 8707)', async ({ auth, person }) => {
    const claims = decodeJwt(tokens.access_token);
    const header = decodeProtectedHeader(tokens.access_token);
    expect(header).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const user = await auth.users.findByEmail(person.email);
    expect(claims).toMatchObject({
      iss: auth.issuer,
      aud: auth.resource,
      sub: user!.id,
      client_id: client.client_id,
      scope: 'catalogue:read',
    });
    expect(claims.gid).toBeTypeOf('string');
    expect(claims.exp! - claims.iat!).toBe(86_400);
    // Verifiable from the published JWKS by an independent validator.
    const request = new Request(auth.resource, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    const validated = await oauth.validateJwtAccessToken(as, request, auth.resource, insecure);
    expect(validated.sub).toBe(user!.id);
  });

  test('refreshes with rotation: a new refresh token, same audience and grant', async ({ auth }) => {
    const first = tokens;
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first.refresh_token!, insecure);
    const raw = (await response.clone().json()) as Record<string, unknown>;
    const refreshed = await oauth.processRefreshTokenResponse(as, client, response);
    expect(raw.token_type).toBe('Bearer');
    expect(refreshed.expires_in).toBe(86_400);
    expect(refreshed.refresh_token).toBeTypeOf('string');
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    const claims = decodeJwt(refreshed.access_token);
    expect(claims.aud).toBe(auth.resource);
    expect(claims.gid).toBe(decodeJwt(first.access_token).gid);
    tokens = refreshed;
  });

  test('revokes the refresh token (RFC 7009): refresh fails afterwards and the grant is recorded as revoked', async ({ auth }) => {
    const gid = decodeJwt(tokens.access_token).gid as string;
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
    const response = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await oauth.processRevocationResponse(response);
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    const again = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, again)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
