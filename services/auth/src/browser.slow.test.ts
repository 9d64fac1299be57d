import { createServer } from 'node:http';
import { describe, expect } from 'vitest';
import { close, listen } from '@fragrance/testkit';
import { launchChromiumContext, screenshotPath } from '@fragrance/testkit/browser';
import { authTest } from './testing/app.ts';
import { authorizeUrl, exchange, pkcePair, registerClient } from './testing/flow.ts';

// A real browser (Debian's chromium, driven by playwright-core; no downloaded browser) signs in
// and consents through the pages, the way a person would, and keeps screenshots of them.
/** The one DOM API used inside the page (the project compiles without the DOM lib). */
interface BrowserGlobals {
  getComputedStyle(element: unknown): { maxWidth: string };
}

const test = authTest
  /** The client application's redirect target: its base URL. */
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('callbackBase', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('client app received the response'));
    onCleanup(() => close(app));
    return listen(app);
  })
  /** One browser profile for the file: the second test reuses the first one's session. */
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('context', { scope: 'file' }, async ({}, { onCleanup }) => {
    const context = await launchChromiumContext();
    onCleanup(() => context.close());
    return context;
  });

describe('sign-in and consent in a real browser', () => {
  test('signs in, sees the consent page, allows, and lands on the client with code, state and iss', async ({
    auth,
    person,
    callbackBase,
    context,
  }) => {
    const redirect = `${callbackBase}/callback`;
    const clientId = await registerClient(auth.issuer, [redirect], 'Browser Test Client');
    const { verifier, challenge } = pkcePair();
    const page = await context.newPage();

    await page.goto(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: redirect,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'browser-state',
      }),
    );
    await expect.poll(() => page.title()).toContain('Sign in');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
    // The stylesheet applied (the card has its max width), i.e. CSP and the asset route work.
    expect(await page.locator('main.card').evaluate((el) => (globalThis as unknown as BrowserGlobals).getComputedStyle(el).maxWidth)).toBe(
      '416px',
    );

    // Wrong password first: an accessible alert, still on the sign-in page.
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('do not match');
    await page.screenshot({ path: screenshotPath('auth-sign-in-error.png'), fullPage: true });

    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    expect(await page.locator('h1').textContent()).toContain('Browser Test Client');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain(new URL(callbackBase).host);
    expect(text).toContain('Search and read the fragrance catalogue');
    expect(await page.getByRole('button', { name: 'Deny' }).isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('auth-consent.png'), fullPage: true });

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirect));
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('browser-state');
    expect(landed.searchParams.get('iss')).toBe(auth.issuer);
    const code = landed.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const tokens = await exchange(auth.issuer, clientId, redirect, {
      code,
      verifier,
      callback: landed,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.token_type).toBe('Bearer');
    await page.close();
  }, 60_000);

  test('Deny sends the browser back with access_denied', async ({ auth, callbackBase, context }) => {
    const redirect = `${callbackBase}/callback`;
    const clientId = await registerClient(auth.issuer, [redirect], 'Denied Client');
    const { challenge } = pkcePair();
    const page = await context.newPage();
    // Same browser profile: the session from the first test is reused, so consent comes first.
    await page.goto(
      authorizeUrl(auth.issuer, {
        client_id: clientId,
        redirect_uri: redirect,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'no',
      }),
    );
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(redirect));
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
    await page.close();
  }, 60_000);
});
