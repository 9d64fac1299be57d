import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect } from 'vitest';
import { close, FormUser } from '@fragrance/testkit';
import { isSpecialUseAddress } from './cimd.ts';
import { authTest, type AuthApp } from './testing/app.ts';
import { authorizeUrl, exchange, followOnOrigin, obtainCode, pkcePair } from './testing/flow.ts';

// Client ID Metadata Documents: the client_id is an https URL whose document the server fetches.
// A local TLS server with a certificate made for this test (and trusted only by it) hosts them.
const REDIRECT = 'http://127.0.0.1:43000/cb';

/** A self-signed certificate for localhost, made for this file. */
function makeCertificate(dir: string): { key: Buffer; cert: string } {
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
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}

const test = authTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('documents', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
    const { key, cert } = makeCertificate(dir);
    const hits = new Map<string, number>();
    const served = new Map<string, { status?: number; body: string; headers?: Record<string, string> }>();
    const tls = createServer({ key, cert }, (req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const doc = served.get(path);
      if (!doc) return void res.writeHead(404).end();
      res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...doc.headers }).end(doc.body);
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    onCleanup(async () => {
      await close(tls);
      rmSync(dir, { recursive: true, force: true });
    });
    const base = `https://localhost:${(tls.address() as AddressInfo).port}`;
    return {
      base,
      cert,
      /** Requests per path. */
      hits,
      /** Serves `metadata` at `path`; returns its URL (the client_id). */
      publish: (
        path: string,
        metadata: Record<string, unknown> | string,
        extra: { status?: number; headers?: Record<string, string> } = {},
      ) => {
        served.set(path, { body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata), ...extra });
        return `${base}${path}`;
      },
    };
  })
  .extend('authOptions', { scope: 'file' }, ({ documents }) => ({ cimd: { ca: documents.cert, allowHosts: ['localhost'] } }));

const startAt = (instance: AuthApp, clientId: string, user = new FormUser(instance.issuer)) => {
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
  test('is advertised in the metadata', async ({ auth }) => {
    const metadata = (await (await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  test('resolves an https client_id to its document and completes the code flow, fetching once (cache)', async ({
    auth,
    person,
    documents,
  }) => {
    const clientId = documents.publish('/good.json', {
      client_id: `${documents.base}/good.json`,
      client_name: 'Metadata Client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const result = await obtainCode(auth.issuer, clientId, REDIRECT, person);
    const tokens = await exchange(auth.issuer, clientId, REDIRECT, result);
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.access_token as string)).toMatchObject({
      client_id: clientId,
      aud: auth.resource,
    });
    expect(tokens.body.refresh_token).toBeTypeOf('string');
    await obtainCode(auth.issuer, clientId, REDIRECT, person);
    expect(documents.hits.get('/good.json')).toBe(1);
  });

  test('shows on the consent page which host vouches for the client', async ({ auth, person, documents }) => {
    const clientId = documents.publish('/consent.json', {
      client_id: `${documents.base}/consent.json`,
      client_name: 'Vouched',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    });
    const user = new FormUser(auth.issuer);
    let page = await startAt(auth, clientId, user);
    page = await user.request(page.location!);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    page = await user.request(new URL(/action="([^"]+)"/.exec(page.body)![1]!, auth.issuer).href, {
      form: { csrf, ...person },
    });
    page = await followOnOrigin(user, page);
    expect(page.body).toContain(`published at <strong>${new URL(documents.base).host}</strong>`);
  });

  test.for<[string, (url: string) => Record<string, unknown>]>([
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
  ])('refuses a document with %s (error page, no redirect)', async ([, make], { auth, documents }) => {
    const path = `/bad-${documents.hits.size}-${Math.random().toString(36).slice(2)}.json`;
    const clientId = documents.publish(path, make(`${documents.base}${path}`));
    const page = await startAt(auth, clientId);
    expect(page.location).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.body).toMatch(/invalid_(client|client_metadata|redirect_uri)\b/);
  });

  test.for<[string, string, (url: string) => Record<string, unknown>, string]>([
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
  ])('holds a document to the registration size limits: %s → %s', async ([, error, make, description], { auth, documents }) => {
    const path = `/limits-${Math.random().toString(36).slice(2)}.json`;
    const clientId = documents.publish(path, make(`${documents.base}${path}`));
    const page = await startAt(auth, clientId);
    expect(page.location).toBeUndefined();
    expect(page.status).toBe(400);
    expect(page.body).toContain(error);
    expect(page.body).toContain(description);
  });

  test('refuses a document that is too large, not JSON, or missing', async ({ auth, documents }) => {
    const big = documents.publish('/big.json', {
      client_id: `${documents.base}/big.json`,
      redirect_uris: [REDIRECT],
      client_name: 'x'.repeat(10_000),
    });
    const notJson = documents.publish('/not-json.json', '<html>');
    for (const clientId of [big, notJson, `${documents.base}/missing.json`]) {
      const page = await startAt(auth, clientId);
      expect(page.location).toBeUndefined();
      expect(page.body).toContain('invalid_client');
    }
  });

  test('does not follow redirects', async ({ auth, documents }) => {
    const clientId = documents.publish('/moved.json', '', {
      status: 302,
      headers: { location: `${documents.base}/good.json` },
    });
    const page = await startAt(auth, clientId);
    expect(page.location).toBeUndefined();
    expect(page.body).toContain('invalid_client');
  });

  test('never fetches from loopback or private addresses unless a host is explicitly allowed', async ({ documents, startAuth }) => {
    const strict = await startAuth({ cimd: { ca: documents.cert } });
    const before = documents.hits.get('/good.json');
    const page = await startAt(strict, `${documents.base}/good.json`);
    expect(page.location).toBeUndefined();
    expect(page.body).toContain('invalid_client');
    expect(documents.hits.get('/good.json')).toBe(before);
    expect(
      ['127.0.0.1', '10.1.2.3', '192.168.0.1', '172.20.0.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0'].every(
        isSpecialUseAddress,
      ),
    ).toBe(true);
    expect(['93.184.216.34', '2606:4700::1111'].some(isSpecialUseAddress)).toBe(false);
  });
});
