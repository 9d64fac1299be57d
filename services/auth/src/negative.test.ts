import { decodeJwt } from 'jose';
import { describe, expect } from 'vitest';
import { disableUser } from '@fragrance/identity';
import { FormUser as HeadlessUser } from '@fragrance/testkit';
import { authTest } from './testing/app.ts';
import { authorizeUrl, exchange, obtainCode, pkcePair, register, registerClient, token } from './testing/flow.ts';
import { rawRequest } from './testing/raw-http.ts';

// Every way a request can be wrong, each with the exact error the RFCs name.
const REDIRECT = 'http://127.0.0.1:41000/cb';

const test = authTest.extend('clientId', { scope: 'file' }, ({ auth }) => registerClient(auth.issuer, [REDIRECT]));

const noRedirect = (page: { status: number; location?: string }) => {
  expect(page.location).toBeUndefined();
  expect(page.status).toBe(400);
};

describe('PKCE (OAuth 2.1 §4.1.1, RFC 7636)', () => {
  const base = (clientId: string) => ({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: 'xyz',
  });

  test('missing code_challenge → invalid_request at the redirect URI, with state and iss', async ({ auth, clientId }) => {
    const page = await new HeadlessUser(auth.issuer).request(authorizeUrl(auth.issuer, base(clientId)));
    expect(page.status).toBe(303);
    const to = new URL(page.location!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('invalid_request');
    expect(to.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(to.searchParams.get('state')).toBe('xyz');
    expect(to.searchParams.get('iss')).toBe(auth.issuer);
  });

  test('code_challenge_method=plain → invalid_request at the redirect URI', async ({ auth, clientId }) => {
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        ...base(clientId),
        code_challenge: pkcePair().verifier,
        code_challenge_method: 'plain',
      }),
    );
    const to = new URL(page.location!);
    expect(to.searchParams.get('error')).toBe('invalid_request');
    expect(to.searchParams.get('error_description')).toMatch(/code_challenge_method/);
  });

  test('a challenge without a method is refused too (plain is the RFC 7636 default)', async ({ auth, clientId }) => {
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, { ...base(clientId), code_challenge: pkcePair().challenge }),
    );
    expect(new URL(page.location!).searchParams.get('error')).toBe('invalid_request');
  });

  test('wrong code_verifier → invalid_grant', async ({ auth, person, clientId }) => {
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const response = await exchange(auth.issuer, clientId, REDIRECT, {
      ...result,
      verifier: pkcePair().verifier,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
  });

  test('missing code_verifier → invalid_grant', async ({ auth, person, clientId }) => {
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const response = await token(auth.issuer, {
      grant_type: 'authorization_code',
      code: result.code,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^invalid_(grant|request)$/);
  });
});

describe('authorization codes', () => {
  test('replayed code → invalid_grant, and the tokens it issued are revoked', async ({ auth, person, clientId }) => {
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const first = await exchange(auth.issuer, clientId, REDIRECT, result);
    expect(first.status).toBe(200);
    const gid = decodeJwt(first.body.access_token as string).gid as string;
    const replay = await exchange(auth.issuer, clientId, REDIRECT, result);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    const refresh = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  test('racing redemptions of one code: exactly one succeeds', async ({ auth, person, clientId }) => {
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const responses = await Promise.all(Array.from({ length: 6 }, () => exchange(auth.issuer, clientId, REDIRECT, result)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status !== 200).every((r) => r.body.error === 'invalid_grant')).toBe(true);
  });

  test('racing uses of one refresh token: every use is answered, and every refresh token handed out stays usable', async ({
    auth,
    person,
    clientId,
  }) => {
    const first = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
    const rt = first.body.refresh_token as string;
    const gid = decodeJwt(first.body.access_token as string).gid as string;
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => token(auth.issuer, { grant_type: 'refresh_token', refresh_token: rt, client_id: clientId })),
    );
    // The token stays usable until one of its successors is used (refresh-rotation.test.ts).
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 6 }, () => 200));
    const answered = responses.map((r) => r.body.refresh_token as string);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
    const usable = await Promise.all(answered.map(async (value) => (await auth.provider.RefreshToken.find(value))?.isValid === true));
    expect(usable.every(Boolean)).toBe(true);
  });

  test('expired code → invalid_grant (codes live 60 s by default; 1 s here)', async ({ person, startAuth }) => {
    const short = await startAuth({
      ttl: { accessToken: 86_400, authorizationCode: 1, session: 3600, refreshTokenIdle: 86_400, refreshTokenMax: 86_400 },
    });
    await short.users.create(person.email, person.password);
    const id = await registerClient(short.issuer, [REDIRECT]);
    const result = await obtainCode(short.issuer, id, REDIRECT, person);
    // Wait until the provider itself counts the code expired, rather than for a guessed 2 s.
    await expect
      .poll(
        async () => {
          const stored = await short.provider.AuthorizationCode.find(result.code, { ignoreExpiration: true });
          return !stored || stored.isExpired;
        },
        { timeout: 5_000, interval: 100, message: 'the code expired' },
      )
      .toBe(true);
    const response = await exchange(short.issuer, id, REDIRECT, result);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/invalid|expired/),
    });
  });

  test('the default code lifetime is 60 seconds', async ({ auth, person, clientId }) => {
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const stored = await auth.provider.AuthorizationCode.find(result.code);
    expect(stored!.exp! - stored!.iat).toBe(60);
  });

  test('redirect_uri at the token endpoint different from the one authorized → invalid_grant', async ({ auth, person }) => {
    const other = 'http://127.0.0.1:41000/other';
    const id = await registerClient(auth.issuer, [REDIRECT, other]);
    const result = await obtainCode(auth.issuer, id, REDIRECT, person);
    const response = await exchange(auth.issuer, id, other, result);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
  });

  test('a code presented by another client → invalid_grant', async ({ auth, person, clientId }) => {
    const other = await registerClient(auth.issuer, [REDIRECT]);
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const response = await exchange(auth.issuer, other, REDIRECT, result);
    expect(response.body.error).toBe('invalid_grant');
  });
});

describe('clients and redirect URIs (no open redirects)', () => {
  test('unregistered redirect_uri → error page, never a redirect', async ({ auth, clientId }) => {
    const { challenge } = pkcePair();
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: 'https://evil.example/steal',
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
      }),
    );
    noRedirect(page);
    expect(page.body).toContain('redirect_uri');
    expect(page.body).not.toContain('evil.example/steal"');
  });

  test.for([
    ['a different port on an https-less web client', 'http://127.0.0.1:41001/cb'],
    ['a path that walks out', 'http://127.0.0.1:41000/cb/../evil'],
    ['an extra query', 'http://127.0.0.1:41000/cb?next=https://evil.example'],
    ['a fragment', 'http://127.0.0.1:41000/cb#x'],
    ['a look-alike host', 'http://127.0.0.1.evil.example:41000/cb'],
  ])('redirect_uri with %s is refused without redirecting', async ([, redirect], { auth }) => {
    const web = await registerClient(auth.issuer, ['https://app.example/cb', REDIRECT]);
    const { challenge } = pkcePair();
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        client_id: web,
        redirect_uri: redirect,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    noRedirect(page);
  });

  test('native clients may use any loopback port (RFC 8252 §7.3)', async ({ auth, person, clientId }) => {
    const result = await obtainCode(auth.issuer, clientId, 'http://127.0.0.1:50123/cb', person);
    expect(result.callback.port).toBe('50123');
  });

  test('unknown client_id → error page at authorize (even with a redirect_uri), invalid_client at token', async ({ auth }) => {
    const { challenge } = pkcePair();
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        client_id: 'no-such-client',
        redirect_uri: 'https://evil.example/cb',
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    noRedirect(page);
    expect(page.body).toContain('invalid_client');
    const response = await token(auth.issuer, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: REDIRECT,
      client_id: 'no-such-client',
      code_verifier: pkcePair().verifier,
    });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
  });

  test('missing client_id → error page, no redirect', async ({ auth }) => {
    const page = await new HeadlessUser(auth.issuer).request(authorizeUrl(auth.issuer, { redirect_uri: REDIRECT, response_type: 'code' }));
    noRedirect(page);
  });

  test('unsupported response_type with a valid redirect → unsupported_response_type at the redirect URI', async ({ auth, clientId }) => {
    const { challenge } = pkcePair();
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'token',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'q',
      }),
    );
    if (!page.location) throw new Error(`${page.status} ${page.body}`);
    // response_type=token defaults to the fragment response mode, so the error travels there.
    const to = new URLSearchParams(new URL(page.location).hash.slice(1));
    expect(page.location.startsWith(`${REDIRECT}#`)).toBe(true);
    expect(to.get('error')).toBe('unsupported_response_type');
    expect(to.get('state')).toBe('q');
  });

  test('a resource other than the MCP server → invalid_target', async ({ auth, clientId }) => {
    const { challenge } = pkcePair();
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: 'https://other.example/api',
      }),
    );
    expect(new URL(page.location!).searchParams.get('error')).toBe('invalid_target');
  });

  test('Deny on the consent page → access_denied at the redirect URI', async ({ auth, person, clientId }) => {
    const { challenge } = pkcePair();
    const final = await new HeadlessUser(auth.issuer).authorize(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'd',
      }),
      person,
      'deny',
    );
    const to = new URL(final.location!);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('state')).toBe('d');
    expect(to.searchParams.get('iss')).toBe(auth.issuer);
    expect(to.searchParams.get('code')).toBeNull();
  });
});

describe('refresh tokens', () => {
  // The reuse grace period and its limits are in refresh-rotation.test.ts.
  test('reusing a rotated refresh token whose successor was used → invalid_grant and the whole grant is revoked', async ({
    auth,
    person,
    clientId,
  }) => {
    const first = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
    const rt1 = first.body.refresh_token as string;
    const gid = decodeJwt(first.body.access_token as string).gid as string;
    const second = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: rt1,
      client_id: clientId,
    });
    expect(second.status).toBe(200);
    const rt2 = second.body.refresh_token as string;
    expect(rt2).not.toBe(rt1);
    const third = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: rt2,
      client_id: clientId,
    });
    expect(third.status).toBe(200);
    const rt3 = third.body.refresh_token as string;
    const reuse = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: rt1,
      client_id: clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    // The legitimate holder's newest token died with the grant.
    const fourth = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: rt3,
      client_id: clientId,
    });
    expect(fourth.body.error).toBe('invalid_grant');
  });

  test('a refresh token of another client → invalid_grant', async ({ auth, person, clientId }) => {
    const first = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
    const other = await registerClient(auth.issuer, [REDIRECT]);
    const response = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: other,
    });
    expect(response.body.error).toBe('invalid_grant');
  });

  test('an unknown grant_type → unsupported_grant_type', async ({ auth, clientId }) => {
    const response = await token(auth.issuer, {
      grant_type: 'password',
      username: 'a',
      password: 'b',
      client_id: clientId,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('unsupported_grant_type');
  });
});

describe('disabled users', () => {
  test('cannot refresh, cannot sign in, and their issued tokens are recorded as revoked', async ({ auth, clientId }) => {
    const bob = { email: 'bob@example.com', password: 'bob has a long password' };
    await auth.users.create(bob.email, bob.password);
    const tokens = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, bob));
    const claims = decodeJwt(tokens.body.access_token as string);
    expect(
      await auth.revocations.isRevoked({
        gid: claims.gid as string,
        sub: claims.sub!,
        iat: claims.iat!,
      }),
    ).toBe(false);

    await disableUser(auth.users, auth.revocations, bob.email);
    expect(
      await auth.revocations.isRevoked({
        gid: claims.gid as string,
        sub: claims.sub!,
        iat: claims.iat!,
      }),
    ).toBe(true);
    const refresh = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    await expect(obtainCode(auth.issuer, clientId, REDIRECT, bob)).rejects.toThrow(/no redirect: 401/);
  });
});

describe('registration (RFC 7591) refuses bad metadata', () => {
  test.for([
    ['http on a public host', { redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example/cb#frag'] }, 'invalid_redirect_uri'],
    ['javascript:', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['data:', { redirect_uris: ['data:text/html,hi'] }, 'invalid_redirect_uri'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['user info', { redirect_uris: ['https://user:pw@app.example/cb'] }, 'invalid_redirect_uri'],
    ['an empty list', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['a non-string entry', { redirect_uris: [42] }, 'invalid_redirect_uri'],
    ['no redirect_uris', { client_name: 'x' }, 'invalid_redirect_uri'],
    [
      'a secret-based auth method',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    ['the implicit grant', { redirect_uris: [REDIRECT], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['response_type token', { redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
    ['an unknown scope', { redirect_uris: [REDIRECT], scope: 'admin:write' }, 'invalid_client_metadata'],
    ['client_name not a string', { redirect_uris: [REDIRECT], client_name: { a: 1 } }, 'invalid_client_metadata'],
  ])('%s → %s', async ([, metadata, error], { auth }) => {
    const response = await register(auth.issuer, metadata);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe(error);
    // The description says what is wrong with the member (not a generic sentence).
    expect(response.body.error_description).toMatch(error === 'invalid_redirect_uri' ? /^redirect_uris\b/ : /\w/);
  });

  test.for(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'self_signed_tls_client_auth'])(
    'token_endpoint_auth_method %s → invalid_client_metadata naming the one allowed method, none',
    async (method, { auth }) => {
      const response = await register(auth.issuer, { redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_client_metadata');
      expect(response.body.error_description).toBe(`token_endpoint_auth_method must be "none" (public clients only), not "${method}"`);
    },
  );

  test('a body that is not JSON → invalid_request', async ({ auth }) => {
    const response = await register(auth.issuer, '{not json');
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });

  test('accepts https, loopback and private-use redirect URIs and the scopes the MCP SDK sends', async ({ auth }) => {
    const response = await register(auth.issuer, {
      client_name: 'Native',
      redirect_uris: ['com.example.app:/oauth/cb', 'http://[::1]/cb', 'http://localhost:3000/cb'],
      scope: 'catalogue:read offline_access openid',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(response.status).toBe(201);
    expect(response.body.application_type).toBe('native');
  });

  test('throttles registrations per source address with 429 and Retry-After', async ({ startAuth }) => {
    const limited = await startAuth({ registrationLimitPerHour: 2 });
    for (let i = 0; i < 2; i++) expect((await register(limited.issuer, { redirect_uris: [REDIRECT] })).status).toBe(201);
    const refused = await register(limited.issuer, { redirect_uris: [REDIRECT] });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.code).toBe('registration_rate_limited');
  });
});

describe('registration (RFC 7591) size limits', () => {
  const uris = (n: number) => Array.from({ length: n }, (_, i) => `https://app.example/cb/${i}`);
  const longUri = (length: number) => {
    const start = 'https://app.example/';
    return start + 'p'.repeat(length - start.length);
  };

  test.for([
    ['11 redirect URIs', 'invalid_redirect_uri', { redirect_uris: uris(11) }, 'redirect_uris may list at most 10 entries (got 11)'],
    [
      'a redirect URI of 2001 characters',
      'invalid_redirect_uri',
      { redirect_uris: [REDIRECT, longUri(2001)] },
      'redirect_uris[1] is 2001 characters long; at most 2000 are allowed',
    ],
    [
      'a client_name of 201 characters',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], client_name: 'n'.repeat(201) },
      'client_name is 201 characters long; at most 200 are allowed',
    ],
    [
      'a software_version of 201 characters',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], software_version: 'v'.repeat(201) },
      'software_version is 201 characters long; at most 200 are allowed',
    ],
    [
      'a scope of 224 characters',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], scope: Array(15).fill('catalogue:read').join(' ') },
      'scope is 224 characters long; at most 200 are allowed',
    ],
    [
      'a client_uri of 2001 characters',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], client_uri: longUri(2001) },
      'client_uri is 2001 characters long; at most 2000 are allowed',
    ],
    [
      'a logo_uri of 2001 characters',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], logo_uri: longUri(2001) },
      'logo_uri is 2001 characters long; at most 2000 are allowed',
    ],
    [
      '11 contacts',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], contacts: Array.from({ length: 11 }, (_, i) => `c${i}@example.com`) },
      'contacts may list at most 10 entries (got 11)',
    ],
    [
      'a contact of 201 characters',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], contacts: [`${'c'.repeat(189)}@example.com`] },
      'contacts[0] is 201 characters long; at most 200 are allowed',
    ],
    [
      '11 post-logout redirect URIs',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT], post_logout_redirect_uris: uris(11) },
      'post_logout_redirect_uris may list at most 10 entries (got 11)',
    ],
  ])('%s → %s naming the limit', async ([, error, metadata, description], { auth }) => {
    const response = await register(auth.issuer, metadata);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error, error_description: description });
  });

  test('accepts every member at its limit', async ({ auth }) => {
    const response = await register(auth.issuer, {
      redirect_uris: [...uris(9), longUri(2000)],
      client_name: 'n'.repeat(200),
      software_id: 'i'.repeat(200),
      software_version: 'v'.repeat(200),
      client_uri: longUri(2000),
      contacts: Array.from({ length: 10 }, (_, i) => `c${i}@example.com`),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.redirect_uris).toHaveLength(10);
    expect(response.body.client_name).toHaveLength(200);
  });

  test('1,000 redirect URIs are refused, nothing is stored', async ({ auth, redis }) => {
    const clients = async () => (await redis.redis.keys(`${redis.prefix}oidc:Client:*`)).length;
    const before = await clients();
    const response = await register(auth.issuer, { redirect_uris: uris(1000) });
    expect(response.status).toBe(413);
    expect(await clients()).toBe(before);
  });

  const body = (bytes: number) => {
    const json = JSON.stringify({ redirect_uris: [REDIRECT], client_name: '' });
    return JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'n'.repeat(bytes - json.length) });
  };

  test('a body over 16 KiB → 413 payload_too_large problem+json naming the limit', async ({ auth }) => {
    const response = await fetch(`${auth.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(16 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({
      status: 413,
      code: 'payload_too_large',
      detail: 'Request bodies may be at most 16384 bytes.',
    });
  });

  test('the body limit holds without a Content-Length (chunked), and a chunked body under it is read', async ({ auth }) => {
    const chunked = async (json: string) =>
      rawRequest(`${auth.issuer}/oauth/register`, {
        method: 'POST',
        headers: [
          ['Content-Type', 'application/json'],
          ['Transfer-Encoding', 'chunked'],
        ],
        chunked: true,
        body: json,
      });
    const big = await chunked(body(16 * 1024 + 1));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ code: 'payload_too_large' });
    const small = await chunked(JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Chunked' }));
    expect(small.status, small.body).toBe(201);
    expect(JSON.parse(small.body)).toMatchObject({ client_name: 'Chunked' });
  });

  test('a body of exactly 16 KiB is read (then judged on its metadata)', async ({ auth }) => {
    const response = await register(auth.issuer, body(16 * 1024));
    expect(response.status).toBe(400);
    expect(response.body.error_description).toMatch(/^client_name is \d+ characters long; at most 200 are allowed$/);
  });
});

describe('sign-in page', () => {
  const startInteraction = async (user: HeadlessUser, clientId: string) => {
    const { challenge } = pkcePair();
    let page = await user.request(
      authorizeUrl(user.origin, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    page = await user.request(page.location!);
    const action = /action="([^"]+\/login)"/.exec(page.body)![1]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    return { action: new URL(action, user.origin).href, csrf };
  };

  test('refuses a post without the CSRF token (403) and one with a forged token', async ({ auth, person, clientId }) => {
    const user = new HeadlessUser(auth.issuer);
    const { action } = await startInteraction(user, clientId);
    expect((await user.request(action, { form: { ...person } })).status).toBe(403);
    expect((await user.request(action, { form: { ...person, csrf: 'forged' } })).status).toBe(403);
  });

  test('throttles failed sign-ins per account: 429 with Retry-After, even with the right password', async ({ auth, clientId }) => {
    const carol = { email: 'carol@example.com', password: 'carol has a long password' };
    await auth.users.create(carol.email, carol.password);
    const user = new HeadlessUser(auth.issuer);
    const { action, csrf } = await startInteraction(user, clientId);
    for (let i = 0; i < 5; i++) {
      const page = await user.request(action, {
        form: { csrf, email: carol.email, password: 'wrong password!!' },
      });
      expect(page.status).toBe(401);
      expect(page.body).toContain('do not match');
    }
    const blocked = await user.request(action, { form: { csrf, ...carol } });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toContain('Too many failed sign-ins');
  });

  test("throttles failed sign-ins per source address (the gateway's X-Forwarded-For, trusted from loopback)", async ({ startAuth }) => {
    const limited = await startAuth({
      login: { perAccount: 100, perAddress: 3, windowSeconds: 60 },
    });
    const id = await registerClient(limited.issuer, [REDIRECT]);
    const attempt = async (address: string, email: string) => {
      const user = new HeadlessUser(limited.issuer);
      const headers = { 'x-forwarded-for': address };
      const { challenge } = pkcePair();
      let page = await user.request(
        authorizeUrl(limited.issuer, {
          client_id: id,
          redirect_uri: REDIRECT,
          response_type: 'code',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
        { headers },
      );
      page = await user.request(page.location!, { headers });
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
      const action = new URL(/action="([^"]+\/login)"/.exec(page.body)![1]!, limited.issuer).href;
      return (
        await user.request(action, {
          form: { csrf, email, password: 'some wrong password' },
          headers,
        })
      ).status;
    };
    for (let i = 0; i < 3; i++) expect(await attempt('203.0.113.7', `guess${i}@example.com`)).toBe(401);
    expect(await attempt('203.0.113.7', 'guess9@example.com')).toBe(429);
    expect(await attempt('203.0.113.8', 'guess9@example.com')).toBe(401);
  });

  test('an unknown interaction id → error page (400), no redirect', async ({ auth }) => {
    const page = await new HeadlessUser(auth.issuer).request(`${auth.issuer}/oauth/interaction/not-a-real-uid`);
    noRedirect(page);
    expect(page.body).toContain('expired');
  });
});

describe('garbage never causes a 5xx', () => {
  // The code an answer carries: OAuth JSON `error`, problem+json `code`, or the one our HTML error page shows.
  const errorCode = (contentType: string | null, body: string): string | null => {
    if (contentType?.startsWith('application/json')) return (JSON.parse(body) as { error?: string }).error ?? null;
    if (contentType?.startsWith('application/problem+json')) return (JSON.parse(body) as { code?: string }).code ?? null;
    if (contentType?.startsWith('text/html')) return /Error code: <code>([^<]+)<\/code>/.exec(body)?.[1] ?? null;
    return null;
  };
  test.for([
    ['token without a body', '/oauth/token', { method: 'POST' }, 400, 'invalid_request'],
    [
      'token with JSON',
      '/oauth/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type":"authorization_code"}',
      },
      400,
      'invalid_request',
    ],
    [
      'token without grant_type',
      '/oauth/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'client_id=x',
      },
      401,
      'invalid_client',
    ],
    [
      'token with repeated parameters',
      '/oauth/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&grant_type=refresh_token',
      },
      400,
      'invalid_request',
    ],
    [
      'token with a body too large',
      '/oauth/token',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `code=${'x'.repeat(200_000)}`,
      },
      400,
      'invalid_request',
    ],
    [
      'register with an array',
      '/oauth/register',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2]' },
      400,
      'invalid_request',
    ],
    [
      'register with form data',
      '/oauth/register',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'redirect_uris=x',
      },
      400,
      'invalid_request',
    ],
    [
      'register with a huge name',
      '/oauth/register',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'n'.repeat(60_000) }),
      },
      413,
      'payload_too_large',
    ],
    ['revoke without a body', '/oauth/revoke', { method: 'POST' }, 400, 'invalid_request'],
    ['authorize with repeated parameters', '/oauth/authorize?client_id=a&client_id=b&response_type=code', {}, 400, 'invalid_request'],
    [
      'authorize with a request object',
      '/oauth/authorize?client_id=a&request=eyJ.eyJ.sig&response_type=code',
      {},
      400,
      'request_not_supported',
    ],
    ['authorize with an unknown prompt', '/oauth/authorize?prompt=%00&client_id=a', {}, 400, 'invalid_client'],
    [
      'interaction post without cookies',
      '/oauth/interaction/abc/login',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a&password=b&csrf=c',
      },
      400,
      'invalid_request',
    ],
    [
      'interaction post with a huge body',
      '/oauth/interaction/abc/confirm',
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${'c'.repeat(20_000)}`,
      },
      413,
      'payload_too_large',
    ],
    ['an unknown oauth path', '/oauth/nope', {}, 404, null],
    ['an asset path traversal', '/oauth/assets/..%2F..%2Fpackage.json', {}, 403, 'bad_request'],
  ] as const)('%s → %i %s', async ([, path, init, status, code], { auth }) => {
    const response = await fetch(`${auth.issuer}${path}`, {
      ...(init as RequestInit),
      redirect: 'manual',
    });
    const body = await response.text();
    expect({ status: response.status, code: errorCode(response.headers.get('content-type'), body) }, body.slice(0, 200)).toEqual({
      status,
      code,
    });
    expect(body).not.toContain('"name":');
  });

  test('a PKCE challenge of the wrong shape → invalid_request at the redirect URI', async ({ auth, clientId }) => {
    const page = await new HeadlessUser(auth.issuer).request(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: 'short',
        code_challenge_method: 'S256',
      }),
    );
    expect(new URL(page.location!).searchParams.get('error')).toBe('invalid_request');
  });
});
