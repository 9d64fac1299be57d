import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { generateCatalogue } from '@fragrance/dataset';
import { UserStore } from '@fragrance/identity';
import { close, listen } from '@fragrance/testkit';
import { launchChromium, screenshotPath } from '@fragrance/testkit/browser';
import { catalogueOf, mcpStackTest } from '../src/testing/stack.ts';

// Browser-based MCP clients in real headless Chromium (Debian's chromium, driven by
// playwright-core), against the whole stack behind the edge: a page on an allowed loopback
// origin runs discovery, registration, sign-in and consent by navigation, token, MCP calls,
// refresh and revocation with fetch; a page on another origin reads the metadata but cannot use
// /mcp. Then the account page: two connected apps, one disconnected, a password change.
const person = { email: 'browser.client@example.com', password: 'a password typed in chromium' };
const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

/** A bare page: the origin the in-page client runs on; /callback is where the authorization server returns. */
function pageServer(): Server {
  return createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>'));
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const consoleErrors: string[] = [];

const it = mcpStackTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('origins', { scope: 'file' }, async ({}, { onCleanup }) => {
    const allowedServer = pageServer();
    const refusedServer = pageServer();
    onCleanup(async () => {
      await Promise.all([allowedServer, refusedServer].map(close));
    });
    return {
      allowed: await listen(allowedServer),
      // Same machine, another origin (host differs): not in MCP_ALLOWED_ORIGINS.
      refused: (await listen(refusedServer)).replace('127.0.0.1', 'localhost'),
    };
  })
  /** The whole stack behind the edge, as processes; the person who signs in. */
  .extend('stack', { scope: 'file' }, async ({ redis, es, origins, startStack }) => {
    const alias = await catalogueOf(es, generateCatalogue({ count: 60, seed: 11 }));
    await new UserStore(redis.redis, { prefix: redis.prefix, scrypt: TEST_SCRYPT }).create(person.email, person.password);
    return startStack({
      services: ['catalogue', 'auth', 'mcp', 'gateway'],
      alias,
      env: { mcp: { MCP_ALLOWED_ORIGINS: origins.allowed } },
    });
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }) => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  });

// The stack and the browser start before the first test, under the hook's timeout.
it.beforeAll(async ({ stack, browser }) => {
  expect(stack.urls.edge).toBeTruthy();
  expect(browser.isConnected()).toBe(true);
}, 180_000);

/** A page of the test's browser that records console errors and uncaught exceptions. */
async function watchedPage(browser: Browser, viewport?: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext(viewport ? { viewport } : {});
  const page = await context.newPage();
  page.on('console', (message) => {
    // The 401s this test provokes on purpose (a challenge, a wrong password) are logged by the
    // browser as failed loads; anything else (a CSP violation, a 404, a script error) counts.
    const provoked = message.text() === 'Failed to load resource: the server responded with a status of 401 (Unauthorized)';
    if (message.type() === 'error' && !provoked) consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  return page;
}

/** Signs in (when asked) and allows on the consent page, then waits for the redirect to `redirectUri`. */
async function signInAndAllow(page: Page, authorizationUrl: string, redirectUri: string, password = person.password): Promise<URL> {
  await page.goto(authorizationUrl);
  if (await page.getByLabel('Password').isVisible()) {
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri));
  return new URL(page.url());
}

interface Discovery {
  challenge: string;
  resourceMetadataUrl: string;
  issuer: string;
  as: Record<string, string>;
}

const MCP_FETCH_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

describe('a browser-based MCP client', () => {
  it('on an allowed origin: 401 challenge → RFC 9728 → RFC 8414 → registration → sign-in → token → MCP → refresh → revocation', async ({
    stack,
    origins,
    browser,
  }) => {
    const { edge } = stack.urls;
    const page = await watchedPage(browser);
    await page.goto(`${origins.allowed}/`);

    // Discovery from the page, with the headers the MCP SDK sends.
    const discovery = await page.evaluate(
      async ({ edge, headers }): Promise<Discovery> => {
        const first = await fetch(`${edge}/mcp`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
          }),
        });
        const challenge = first.headers.get('www-authenticate') ?? `(status ${first.status}, no readable challenge)`;
        const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
        const prm = (await (await fetch(resourceMetadataUrl, { headers: { 'mcp-protocol-version': '2025-11-25' } })).json()) as {
          authorization_servers: string[];
        };
        const issuer = prm.authorization_servers[0] ?? '';
        const as = (await (
          await fetch(`${issuer}/.well-known/oauth-authorization-server`, { headers: { 'mcp-protocol-version': '2025-11-25' } })
        ).json()) as Record<string, string>;
        return { challenge, resourceMetadataUrl, issuer, as };
      },
      { edge, headers: MCP_FETCH_HEADERS },
    );
    expect(discovery.challenge).toMatch(/^Bearer /);
    expect(discovery.resourceMetadataUrl).toBe(`${edge}/.well-known/oauth-protected-resource/mcp`);
    expect(discovery.issuer).toBe(edge);
    expect(discovery.as.registration_endpoint).toBe(`${edge}/oauth/register`);

    const redirectUri = `${origins.allowed}/callback`;
    const clientId = await page.evaluate(
      async ({ endpoint, redirectUri }) => {
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Page Client', redirect_uris: [redirectUri] }),
        });
        return ((await res.json()) as { client_id: string }).client_id;
      },
      { endpoint: discovery.as.registration_endpoint!, redirectUri },
    );
    expect(clientId).toBeTruthy();

    // Sign-in and consent by top-level navigation, PKCE S256.
    const { verifier, challenge } = pkce();
    const authorize = new URL(discovery.as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'page-state',
      resource: `${edge}/mcp`,
      scope: 'catalogue:read',
    })) {
      authorize.searchParams.set(k, v);
    }
    const landed = await signInAndAllow(page, authorize.href, redirectUri);
    expect(landed.searchParams.get('state')).toBe('page-state');

    // Back on the client's page: token, MCP calls, refresh, revocation, all with fetch.
    const result = await page.evaluate(
      async ({ as, clientId, redirectUri, verifier, code, edge, headers }) => {
        const form = (values: Record<string, string>) => ({
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(values).toString(),
        });
        const tokens = (await (
          await fetch(
            as.token_endpoint!,
            form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
          )
        ).json()) as Record<string, string>;
        const rpc = async (token: string, id: number, method: string, params: unknown = {}) => {
          const res = await fetch(`${edge}/mcp`, {
            method: 'POST',
            headers: { ...headers, authorization: `Bearer ${token}` },
            body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          });
          return {
            status: res.status,
            challenge: res.headers.get('www-authenticate'),
            body: (await res.json()) as Record<string, unknown>,
          };
        };
        const initialize = await rpc(tokens.access_token!, 1, 'initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'page', version: '1' },
        });
        const list = await rpc(tokens.access_token!, 2, 'tools/list');
        const call = await rpc(tokens.access_token!, 3, 'tools/call', { name: 'search_fragrances', arguments: { limit: 2 } });
        const refreshed = (await (
          await fetch(as.token_endpoint!, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId }))
        ).json()) as Record<string, string>;
        const revoke = await fetch(as.revocation_endpoint!, form({ token: refreshed.refresh_token!, client_id: clientId }));
        const afterRevoke = await rpc(refreshed.access_token!, 4, 'tools/list');
        return { tokens, initialize, list, call, refreshed, revokeStatus: revoke.status, afterRevoke };
      },
      { as: discovery.as, clientId, redirectUri, verifier, code: landed.searchParams.get('code')!, edge, headers: MCP_FETCH_HEADERS },
    );
    expect(result.tokens.token_type).toBe('Bearer');
    expect(result.initialize.status).toBe(200);
    expect(result.initialize.body.result).toMatchObject({ serverInfo: { name: 'fragrance-catalogue' } });
    expect((result.list.body.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('search_fragrances');
    expect(result.call.status).toBe(200);
    expect((result.call.body.result as { isError?: boolean }).isError).not.toBe(true);
    expect(result.refreshed.access_token).toBeTruthy();
    expect(result.refreshed.refresh_token).not.toBe(result.tokens.refresh_token);
    expect(result.revokeStatus).toBe(200);
    // The revoked grant's token: a 401 the page can read, challenge included.
    expect(result.afterRevoke.status).toBe(401);
    expect(result.afterRevoke.challenge).toContain('error="invalid_token"');
    await page.context().close();
  }, 60_000);

  it('on an origin that is not allowed: reads the metadata, cannot use /mcp', async ({ stack, origins, browser }) => {
    const { edge } = stack.urls;
    const page = await watchedPage(browser);
    await page.goto(`${origins.refused}/`);
    const outcome = await page.evaluate(
      async ({ edge, headers }) => {
        const prm = await fetch(`${edge}/.well-known/oauth-protected-resource/mcp`, { headers: { 'mcp-protocol-version': '2025-11-25' } });
        const as = await fetch(`${edge}/.well-known/oauth-authorization-server`, { headers: { 'mcp-protocol-version': '2025-11-25' } });
        let mcp: string;
        try {
          const res = await fetch(`${edge}/mcp`, { method: 'POST', headers, body: '{}' });
          mcp = `readable ${res.status}`;
        } catch (error) {
          mcp = `blocked: ${String(error)}`;
        }
        return { prm: prm.status, as: as.status, mcp };
      },
      { edge, headers: MCP_FETCH_HEADERS },
    );
    expect(outcome).toMatchObject({ prm: 200, as: 200 });
    expect(outcome.mcp).toMatch(/^blocked: TypeError/);
    // The browser reported the refused preflight on the console: expected here, not an error of ours.
    consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((line) => !line.startsWith(origins.refused)));
    await page.context().close();
  }, 30_000);
});

describe('the account page in the browser', () => {
  it('lists two connected apps, disconnects one at once, changes the password; phone-sized, no console errors', async ({
    stack,
    origins,
    browser,
  }) => {
    const { edge } = stack.urls;
    const redirectUri = `${origins.allowed}/callback`;
    const page = await watchedPage(browser, { width: 390, height: 844 });
    // Two clients connected through the pages (the sign-in session of the first serves the second).
    const apps: { clientId: string; access: string; refresh: string }[] = [];
    for (const name of ['Assistant One', 'Assistant Two']) {
      const registered = (await (
        await fetch(`${edge}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri] }),
        })
      ).json()) as { client_id: string };
      const { verifier, challenge } = pkce();
      const url = new URL(`${edge}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        client_id: registered.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      })) {
        url.searchParams.set(k, v);
      }
      const landed = await signInAndAllow(page, url.href, redirectUri);
      const tokens = (await (
        await fetch(`${edge}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: landed.searchParams.get('code')!,
            redirect_uri: redirectUri,
            client_id: registered.client_id,
            code_verifier: verifier,
          }).toString(),
        })
      ).json()) as { access_token: string; refresh_token: string };
      apps.push({ clientId: registered.client_id, access: tokens.access_token, refresh: tokens.refresh_token });
    }
    const mcpStatus = async (token: string) =>
      (
        await fetch(`${edge}/mcp`, {
          method: 'POST',
          headers: { ...MCP_FETCH_HEADERS, authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        })
      ).status;
    const refresh = async (app: { clientId: string; refresh: string }) =>
      (await (
        await fetch(`${edge}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: app.refresh, client_id: app.clientId }).toString(),
        })
      ).json()) as { error?: string; refresh_token?: string };
    const [one, two] = apps as [(typeof apps)[0], (typeof apps)[0]];
    expect(await mcpStatus(one.access)).toBe(200);
    expect(await mcpStatus(two.access)).toBe(200);

    await page.goto(`${edge}/account`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Assistant One' }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Assistant Two' }).isVisible()).toBe(true);
    // Readable on a phone: nothing wider than the screen.
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
      ),
    ).toBeLessThanOrEqual(390);
    await page.screenshot({ path: screenshotPath('account-apps.png'), fullPage: true });

    await page.getByRole('button', { name: 'Disconnect Assistant One' }).click();
    await page.getByRole('status').filter({ hasText: 'disconnected' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Assistant One' }).count()).toBe(0);
    // At once: its access token is refused at /mcp, its refresh token is dead; the other app keeps working.
    expect(await mcpStatus(one.access)).toBe(401);
    expect((await refresh(one)).error).toBe('invalid_grant');
    expect(await mcpStatus(two.access)).toBe(200);
    expect((await refresh(two)).refresh_token).toBeTruthy();

    const newPassword = 'a new password typed in chromium';
    await page.getByLabel('Current password').fill(person.password);
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor();
    await page.screenshot({ path: screenshotPath('account-password-changed.png'), fullPage: true });

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('status').filter({ hasText: 'signed out everywhere' }).waitFor();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();
    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    await page.context().close();

    expect(consoleErrors).toEqual([]);
  }, 90_000);
});
