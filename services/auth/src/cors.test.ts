import { describe, expect } from 'vitest';
import { PREFLIGHT_MAX_AGE_SECONDS } from './routes/cors.ts';
import { authTest } from './testing/app.ts';
import { authorizeUrl, pkcePair, registerClient } from './testing/flow.ts';

// Header-level CORS of the authorization server, per endpoint: every preflight and answer with
// a browser Origin, and without one (server-side clients).
const ORIGIN = 'http://127.0.0.1:11999';
const list = (value: string | null) =>
  (value ?? '')
    .toLowerCase()
    .split(/\s*,\s*/)
    .filter(Boolean);

const test = authTest.extend('clientId', { scope: 'file' }, ({ auth }) =>
  registerClient(auth.issuer, [`${ORIGIN}/callback`], 'CORS client'),
);

const preflight = (issuer: string, path: string, method: string, requestHeaders: string, origin = ORIGIN) =>
  fetch(`${issuer}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': requestHeaders },
  });

function expectReadableBy(res: Response, origin = ORIGIN) {
  expect(res.headers.get('access-control-allow-origin')).toBe(origin);
  expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  expect(list(res.headers.get('vary'))).toContain('origin');
}

function expectPreflightAnswered(res: Response, method: string, header: string) {
  expect(res.status).toBe(204);
  expectReadableBy(res);
  expect(list(res.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
  expect(list(res.headers.get('access-control-allow-headers'))).toContain(header);
  expect(res.headers.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
}

describe('public metadata: any origin, no credentials', () => {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/oauth/jwks']) {
    test(`${path}: preflight with MCP-Protocol-Version, then the document`, async ({ auth }) => {
      expectPreflightAnswered(await preflight(auth.issuer, path, 'GET', 'mcp-protocol-version'), 'GET', 'mcp-protocol-version');
      const res = await fetch(`${auth.issuer}${path}`, { headers: { origin: ORIGIN, 'mcp-protocol-version': '2025-11-25' } });
      expect(res.status).toBe(200);
      expectReadableBy(res);
    });
  }

  test('names none as the revocation endpoint auth method (absent would mean client_secret_basic)', async ({ auth }) => {
    const metadata = (await (await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.revocation_endpoint_auth_methods_supported).toEqual(['none']);
    // Dynamic registrations are public (`none`); the others are for machine clients (machine-clients.test.ts).
    expect(metadata.token_endpoint_auth_methods_supported).toEqual([
      'none',
      'private_key_jwt',
      'client_secret_basic',
      'client_secret_post',
    ]);
  });
});

describe('registration, token and revocation: any origin, never credentials, errors readable', () => {
  test('registration: preflight, a created client and a refused one are readable', async ({ auth }) => {
    expectPreflightAnswered(await preflight(auth.issuer, '/oauth/register', 'POST', 'content-type'), 'POST', 'content-type');
    const post = (body: unknown) =>
      fetch(`${auth.issuer}/oauth/register`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await post({ client_name: 'Web client', redirect_uris: [`${ORIGIN}/cb`] });
    expect(created.status).toBe(201);
    expectReadableBy(created);
    const refused = await post({ client_name: 'Web client', redirect_uris: ['javascript:alert(1)'] });
    expect(refused.status).toBe(400);
    expectReadableBy(refused);
  });

  test('token: preflight, and errors (invalid_grant; invalid_client with its challenge exposed) readable from an origin that is not the client redirect origin', async ({
    auth,
    clientId,
  }) => {
    expectPreflightAnswered(await preflight(auth.issuer, '/oauth/token', 'POST', 'content-type'), 'POST', 'content-type');
    const other = 'http://localhost:11998';
    const post = (form: Record<string, string>) =>
      fetch(`${auth.issuer}/oauth/token`, {
        method: 'POST',
        headers: { origin: other, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const badCode = await post({
      grant_type: 'authorization_code',
      code: 'nope',
      redirect_uri: `${ORIGIN}/callback`,
      client_id: clientId,
      code_verifier: pkcePair().verifier,
    });
    expect(badCode.status).toBe(400);
    expectReadableBy(badCode, other);
    expect(((await badCode.json()) as { error: string }).error).toBe('invalid_grant');
    const unknown = await post({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'no-such-client' });
    expect(unknown.status).toBe(401);
    expectReadableBy(unknown, other);
    expect(list(unknown.headers.get('access-control-expose-headers'))).toContain('www-authenticate');
  });

  test('revocation: preflight and answer readable', async ({ auth, clientId }) => {
    expectPreflightAnswered(await preflight(auth.issuer, '/oauth/revoke', 'POST', 'content-type'), 'POST', 'content-type');
    const res = await fetch(`${auth.issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'unknown', client_id: clientId }).toString(),
    });
    expect(res.status).toBe(200);
    expectReadableBy(res);
    expect(list(res.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(['www-authenticate', 'retry-after']));
  });

  test('without Origin (a server-side client) nothing changes and credentials are never allowed', async ({ auth }) => {
    const res = await fetch(`${auth.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Server client', redirect_uris: ['http://127.0.0.1:1/cb'] }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('authorization, sign-in and consent: navigations only', () => {
  test('sends no CORS headers on the authorization endpoint (preflight or request) or the sign-in page, and denies framing', async ({
    auth,
    clientId,
  }) => {
    const pre = await preflight(auth.issuer, '/oauth/authorize', 'GET', 'mcp-protocol-version');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const { challenge } = pkcePair();
    const authorize = await fetch(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: `${ORIGIN}/callback`,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
      { headers: { origin: ORIGIN }, redirect: 'manual' },
    );
    expect(authorize.status).toBe(303);
    expect(authorize.headers.get('access-control-allow-origin')).toBeNull();
    const page = await fetch(new URL(authorize.headers.get('location')!, auth.issuer), { headers: { origin: ORIGIN } });
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
