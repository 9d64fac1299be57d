import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect } from 'vitest';
import { FormUser, parseForms } from '@fragrance/testkit';
import { authTest, type AuthApp, type Credentials } from './testing/app.ts';
import { authorizeUrl, exchange, followOnOrigin, obtainCode, pkcePair, registerClient, token } from './testing/flow.ts';

const REDIRECT = 'http://127.0.0.1:42000/cb';

const test = authTest.extend('clientId', { scope: 'file' }, ({ auth }) => registerClient(auth.issuer, [REDIRECT], 'Policy <Client>'));

const jwksOf = async (url: string) => (await (await fetch(`${url}/oauth/jwks`)).json()) as JSONWebKeySet;

describe('defaults for clients that send less', () => {
  test('no scope and no resource still yield a catalogue:read JWT for the MCP server', async ({ auth, person, clientId }) => {
    const tokens = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 86_400,
      scope: 'offline_access catalogue:read', // the response names every granted scope
    });
    const claims = decodeJwt(tokens.body.access_token as string);
    expect(claims.aud).toBe(auth.resource);
    expect(claims.scope).toBe('catalogue:read');
    const refreshed = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(decodeJwt(refreshed.body.access_token as string).aud).toBe(auth.resource);
  });

  test('openid and offline_access may be asked for alongside the catalogue scope', async ({ auth, person, clientId }) => {
    const tokens = await exchange(
      auth.issuer,
      clientId,
      REDIRECT,
      await obtainCode(auth.issuer, clientId, REDIRECT, person, {
        scope: 'openid offline_access catalogue:read',
        resource: auth.resource,
        prompt: 'consent',
      }),
    );
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token as string)).toMatchObject({
      aud: auth.resource,
      scope: 'catalogue:read',
    });
    expect(tokens.body.refresh_token).toBeTypeOf('string');
    expect(tokens.body.id_token).toBeTypeOf('string');
  });
});

describe('returning users', () => {
  const again = async (user: FormUser, id: string, redirect: string) => {
    const { challenge } = pkcePair();
    const page = await user.request(
      authorizeUrl(user.origin, {
        client_id: id,
        redirect_uri: redirect,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'again',
      }),
    );
    return followOnOrigin(user, page);
  };

  test('a signed-in user who already consented to a web client gets a code straight away', async ({ auth, person }) => {
    const web = 'https://web-client.example/cb';
    const id = await registerClient(auth.issuer, [web], 'Web Client');
    const user = new FormUser(auth.issuer);
    await obtainCode(auth.issuer, id, web, person, {}, user);
    const page = await again(user, id, web);
    expect(page.status).toBe(303);
    expect(new URL(page.location!).searchParams.get('code')).toBeTruthy();
  });

  test('native clients (loopback or private-use redirects) are asked for consent every time (RFC 8252 §8.6)', async ({
    auth,
    person,
    clientId,
  }) => {
    const user = new FormUser(auth.issuer);
    await obtainCode(auth.issuer, clientId, REDIRECT, person, {}, user);
    const page = await again(user, clientId, REDIRECT);
    expect(page.status).toBe(200);
    expect(page.body).toContain('>Allow</button>');
    expect(page.body).not.toContain('type="password"');
  });
});

describe('consent page', () => {
  test('names the client (escaped), its redirect host and the access, with Allow and Deny', async ({ auth, person, clientId }) => {
    const user = new FormUser(auth.issuer);
    const { challenge } = pkcePair();
    let page = await user.request(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        prompt: 'consent',
      }),
    );
    page = await user.request(page.location!);
    const login = parseForms(page.body, page.url)[0]!;
    page = await followOnOrigin(user, await user.request(login.action, { form: { csrf: login.fields.get('csrf')!, ...person } }));
    expect(page.status).toBe(200);
    expect(page.body).toContain('Policy &lt;Client&gt;');
    expect(page.body).not.toContain('Policy <Client>');
    expect(page.body).toContain('127.0.0.1:42000');
    expect(page.body).toContain('Search and read the fragrance catalogue');
    expect(page.body).toContain(person.email);
    expect(page.body).toMatch(/<button type="submit" class="primary">Allow<\/button>/);
    expect(page.body).toMatch(/<button type="submit" class="secondary">Deny<\/button>/);
  });

  test('pages are sent with a strict CSP, no framing, and the stylesheet is served', async ({ auth }) => {
    const response = await fetch(`${auth.url}/oauth/interaction/whatever`);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const css = await fetch(`${auth.url}/oauth/assets/style.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect((await fetch(`${auth.url}/oauth/assets/nope.css`)).status).toBe(404);
  });
});

describe('revocation of JWT access tokens (RFC 7009)', () => {
  const revoke = (auth: AuthApp, form: Record<string, string>) =>
    fetch(`${auth.issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });

  test('revoking an access token revokes its grant: recorded for the MCP server, refresh fails', async ({ auth, person, clientId }) => {
    const tokens = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
    const at = tokens.body.access_token as string;
    const gid = decodeJwt(at).gid as string;
    const response = await revoke(auth, {
      token: at,
      token_type_hint: 'access_token',
      client_id: clientId,
    });
    expect(response.status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    const refresh = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  test('another client cannot revoke it (200, nothing revoked); garbage tokens get 200; unknown clients 401', async ({
    auth,
    person,
    clientId,
  }) => {
    const tokens = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
    const at = tokens.body.access_token as string;
    const other = await registerClient(auth.issuer, [REDIRECT]);
    expect((await revoke(auth, { token: at, client_id: other })).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid: decodeJwt(at).gid as string })).toBe(false);
    expect((await revoke(auth, { token: 'a.b.c', client_id: clientId })).status).toBe(200);
    expect((await revoke(auth, { token: 'opaque-unknown', client_id: clientId })).status).toBe(200);
    const unknown = await revoke(auth, { token: at, client_id: 'nobody' });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { error: string }).error).toBe('invalid_client');
    // A refresh token presented by another client is ignored too.
    expect((await revoke(auth, { token: tokens.body.refresh_token as string, client_id: other })).status).toBe(200);
    const refresh = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.status).toBe(200);
    expect((await revoke(auth, { token: at })).status).toBe(401);
    const repeated = await fetch(`${auth.issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=a&token=b&client_id=${clientId}`,
    });
    expect(((await repeated.json()) as { error: string }).error).toBe('invalid_request');
    const json = await fetch(`${auth.issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: at, client_id: clientId }),
    });
    expect(json.status).toBe(400);
    const missing = await revoke(auth, { client_id: clientId });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('keys and instances', () => {
  test('a second instance on the same Redis shares keys and state: a code from one is redeemed at the other', async ({
    auth,
    person,
    clientId,
    redis,
    startAuth,
  }) => {
    const twin = await startAuth({ prefix: redis.prefix, issuer: auth.issuer });
    expect(await jwksOf(twin.url)).toEqual(await jwksOf(auth.url));
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const tokens = await exchange(twin.url, clientId, REDIRECT, result);
    expect(tokens.status).toBe(200);
    await jwtVerify(tokens.body.access_token as string, createLocalJWKSet(await jwksOf(auth.url)), {
      issuer: auth.issuer,
      audience: auth.resource,
    });
  });

  test('keys survive a restart and rotation keeps old tokens verifiable while new ones use the new key', async ({
    person,
    redis,
    startAuth,
  }) => {
    const prefix = `${redis.prefix}rot:`;
    const first = await startAuth({ prefix });
    await first.users.create(person.email, person.password);
    const id = await registerClient(first.issuer, [REDIRECT]);
    const before = await exchange(first.issuer, id, REDIRECT, await obtainCode(first.issuer, id, REDIRECT, person));
    const oldKid = decodeProtectedHeader(before.body.access_token as string).kid;
    await first.close();

    const restarted = await startAuth({ prefix, issuer: first.issuer });
    expect((await jwksOf(restarted.url)).keys.map((k) => k.kid)).toEqual([oldKid]);
    const { kid: newKid } = await restarted.keys.rotateSigningKeys();
    await restarted.close();

    const rotated = await startAuth({ prefix, issuer: first.issuer });
    const jwks = await jwksOf(rotated.url);
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    expect(jwks.keys.every((k) => !('d' in k))).toBe(true);
    await jwtVerify(before.body.access_token as string, createLocalJWKSet(jwks), {
      issuer: first.issuer,
    });
    const fresh = await exchange(rotated.url, id, REDIRECT, await obtainCodeAt(rotated, id, person));
    expect(decodeProtectedHeader(fresh.body.access_token as string).kid).toBe(newKid);
  });

  test('behind the edge, metadata follows X-Forwarded-Proto/Host while the issuer stays fixed', async ({ auth }) => {
    const response = await fetch(`${auth.url}/.well-known/oauth-authorization-server`, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'edge.example:8443' },
    });
    const metadata = (await response.json()) as Record<string, string>;
    expect(metadata.issuer).toBe(auth.issuer);
    expect(metadata.token_endpoint).toBe('https://edge.example:8443/oauth/token');
  });

  test('GET /health answers 200 while Redis does', async ({ auth }) => {
    const response = await fetch(`${auth.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', dependencies: { redis: 'up' } });
  });
});

/** The code flow against an instance whose issuer differs from its listening URL. */
async function obtainCodeAt(instance: AuthApp, id: string, person: Credentials) {
  // The browser talks to the instance; the issuer only names it.
  const user = new FormUser(instance.url);
  const { verifier, challenge } = pkcePair();
  const final = await user.authorize(
    authorizeUrl(instance.url, {
      client_id: id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
    person,
  );
  const code = new URL(final.location!).searchParams.get('code')!;
  return { code, verifier, callback: new URL(final.location!) };
}
