import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormUser, testRedis, type TestRedis } from '@fragrance/testkit';
import { isSpecialUseAddress } from './cimd.ts';
import { authorizeUrl, exchange, obtainCode, pkcePair } from './testing/flow.ts';
import { startAuth, type Harness } from './testing/harness.ts';

// Client ID Metadata Documents: the client_id is an https URL whose document the server fetches.
// A local TLS server with a certificate made for this test (and trusted only by it) hosts them.
let t: TestRedis;
let auth: Harness;
let tls: Server;
let base: string;
let dir: string;
let cert: string;
const hits = new Map<string, number>();
const documents = new Map<string, { status?: number; body: string; headers?: Record<string, string> }>();
const REDIRECT = 'http://127.0.0.1:43000/cb';
const erin = { email: 'erin@example.com', password: 'erin has a long password' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  tls = createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const doc = documents.get(path);
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...doc.headers }).end(doc.body);
  });
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  base = `https://localhost:${(tls.address() as AddressInfo).port}`;
  t = await testRedis('auth-cimd');
  auth = await startAuth(t.redis, t.prefix, { cimd: { ca: cert, allowHosts: ['localhost'] } });
  await auth.users.create(erin.email, erin.password);
});
afterAll(async () => {
  await auth.close();
  await new Promise((r) => tls.close(r));
  await t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const publish = (
  path: string,
  metadata: Record<string, unknown> | string,
  extra: { status?: number; headers?: Record<string, string> } = {},
) => {
  documents.set(path, {
    body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
    ...extra,
  });
  return `${base}${path}`;
};

const startAt = (instance: Harness, clientId: string, user = new FormUser(instance.issuer)) => {
  const { challenge } = pkcePair();
  return user.request(
    authorizeUrl(instance.issuer, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
    }),
  );
};

describe('Client ID Metadata Documents', () => {
  it('is advertised in the metadata', async () => {
    const metadata = (await (await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  it('resolves an https client_id to its document and completes the code flow, fetching once (cache)', async () => {
    const clientId = publish('/good.json', {
      client_id: `${base}/good.json`,
      client_name: 'Metadata Client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, erin);
    const tokens = await exchange(auth.issuer, clientId, REDIRECT, result);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token as string)).toMatchObject({
      client_id: clientId,
      aud: auth.resource,
    });
    expect(tokens.body.refresh_token).toBeTypeOf('string');
    await obtainCode(auth.issuer, clientId, REDIRECT, erin);
    expect(hits.get('/good.json')).toBe(1);
  });

  it('shows on the consent page which host vouches for the client', async () => {
    const clientId = publish('/consent.json', {
      client_id: `${base}/consent.json`,
      client_name: 'Vouched',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const user = new FormUser(auth.issuer);
    let page = await startAt(auth, clientId, user);
    page = await user.request(page.location!);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    page = await user.request(new URL(/action="([^"]+)"/.exec(page.body)![1]!, auth.issuer).href, {
      form: { csrf, ...erin },
    });
    while (page.location && new URL(page.location).origin === auth.issuer) page = await user.request(page.location);
    expect(page.body).toContain(`published at <strong>${new URL(base).host}</strong>`);
  });

  it.each([
    ['a client_id that does not match the URL', (url: string) => ({ client_id: `${url}x`, redirect_uris: [REDIRECT] })],
    ['a forbidden redirect URI', (url: string) => ({ client_id: url, redirect_uris: ['http://evil.example/cb'] })],
    [
      'a client secret',
      (url: string) => ({
        client_id: url,
        redirect_uris: [REDIRECT],
        client_secret: 'x',
        token_endpoint_auth_method: 'client_secret_post',
      }),
    ],
  ])('refuses a document with %s (error page, no redirect)', async (_label, make) => {
    const path = `/bad-${hits.size}-${Math.random().toString(36).slice(2)}.json`;
    const clientId = publish(path, make(`${base}${path}`));
    const page = await startAt(auth, clientId);
    expect(page.location).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.body).toMatch(/invalid_(client|client_metadata|redirect_uri)\b/);
  });

  it.each([
    [
      '11 redirect URIs',
      'invalid_redirect_uri',
      (url: string) => ({ client_id: url, redirect_uris: Array.from({ length: 11 }, (_, i) => `${REDIRECT}${i}`) }),
      'redirect_uris may list at most 10 entries (got 11)',
    ],
    [
      'a client_name of 201 characters',
      'invalid_client_metadata',
      (url: string) => ({ client_id: url, redirect_uris: [REDIRECT], client_name: 'n'.repeat(201) }),
      'client_name is 201 characters long; at most 200 are allowed',
    ],
    [
      'a logo_uri of 2001 characters',
      'invalid_client_metadata',
      (url: string) => ({ client_id: url, redirect_uris: [REDIRECT], logo_uri: `https://localhost/${'l'.repeat(1983)}` }),
      'logo_uri is 2001 characters long; at most 2000 are allowed',
    ],
  ])('holds a document to the registration size limits: %s → %s', async (_label, error, make, description) => {
    const path = `/limits-${Math.random().toString(36).slice(2)}.json`;
    const clientId = publish(path, make(`${base}${path}`));
    const page = await startAt(auth, clientId);
    expect(page.location).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.body).toContain(error);
    expect(page.body).toContain(description);
  });

  it('refuses a document that is too large, not JSON, or missing', async () => {
    const big = publish('/big.json', {
      client_id: `${base}/big.json`,
      redirect_uris: [REDIRECT],
      client_name: 'x'.repeat(10_000),
    });
    const notJson = publish('/not-json.json', '<html>');
    for (const clientId of [big, notJson, `${base}/missing.json`]) {
      const page = await startAt(auth, clientId);
      expect(page.location).toBeUndefined();
      expect(page.body).toContain('invalid_client');
    }
  });

  it('does not follow redirects', async () => {
    const clientId = publish('/moved.json', '', {
      status: 302,
      headers: { location: `${base}/good.json` },
    });
    const page = await startAt(auth, clientId);
    expect(page.location).toBeUndefined();
    expect(page.body).toContain('invalid_client');
  });

  it('never fetches from loopback or private addresses unless a host is explicitly allowed', async () => {
    const strict = await startAuth(t.redis, `${t.prefix}strict:`, { cimd: { ca: cert } });
    try {
      const before = hits.get('/good.json');
      const page = await startAt(strict, `${base}/good.json`);
      expect(page.location).toBeUndefined();
      expect(page.body).toContain('invalid_client');
      expect(hits.get('/good.json')).toBe(before);
    } finally {
      await strict.close();
    }
    expect(
      ['127.0.0.1', '10.1.2.3', '192.168.0.1', '172.20.0.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0'].every(
        isSpecialUseAddress,
      ),
    ).toBe(true);
    expect(['93.184.216.34', '2606:4700::1111'].some(isSpecialUseAddress)).toBe(false);
  });
});
