// The storefront in a real browser (Debian's chromium driven by playwright-core; nothing
// downloaded) against the real catalogue and gateway processes over a real Elasticsearch index and
// Redis: on an origin its publishable key allows, a shopper types, sees suggestions, searches,
// filters, pages, opens a result and its similar list, all from the keyboard where a shopper
// would; served from another origin, the same page shows the API's refusal. Screenshots go to
// .local/screenshots (STOREFRONT_SCREENSHOT=update also refreshes docs/images/storefront.png).
import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import {
  close,
  freePort,
  REPO_ROOT,
  startService,
  testElasticsearch,
  testRedis,
  type RunningService,
  type TestElasticsearch,
  type TestRedis,
} from '@fragrance/testkit';
import { launchChromium, screenshotPath } from '@fragrance/testkit/browser';
import { buildAssets, type Asset, type Assets } from './server/assets.ts';
import { createStorefrontServer } from './server/server.ts';

const README_SHOT = `${REPO_ROOT}docs/images/storefront.png`;
/** A small catalogue from the project's generator: realistic names, notes, seasons and descriptions. */
const records = [...generateCatalogue({ count: 400, seed: 2026 })];

/** The DOM calls made inside the page (the project's Node program has no DOM lib). */
interface PageDocument {
  activeElement: { id: string; getAttribute(name: string): string | null } | null;
}
declare const document: PageDocument;

describe('the storefront in a real browser', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  const services: RunningService[] = [];
  const servers: Server[] = [];
  let browser: Browser;
  let allowedOrigin: string;
  let foreignOrigin: string;
  let apiOrigin: string;
  const outside: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    [es, redis] = await Promise.all([testElasticsearch('storefront'), testRedis('storefront')]);
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    const [cataloguePort, gatewayPort] = await Promise.all([freePort(), freePort()]);
    apiOrigin = `http://127.0.0.1:${gatewayPort}`;
    // The same page on two origins: the one the key allows, and a foreign one. Their servers listen
    // first, on ports the kernel picks (a port chosen ahead can be taken meanwhile by an outgoing
    // connection); the key names their origins, and the page is built into `assets` once it exists.
    const assets = new Map<string, Asset>();
    const [allowedPort, foreignPort] = await Promise.all([listenOnFreePort(assets), listenOnFreePort(assets)]);
    allowedOrigin = `http://127.0.0.1:${allowedPort}`;
    foreignOrigin = `http://127.0.0.1:${foreignPort}`;
    services.push(
      await startService('catalogue', cataloguePort, {
        ELASTICSEARCH_URL: es.url,
        CATALOGUE_ALIAS: alias,
        CURSOR_SECRET: randomBytes(32).toString('base64url'),
        PUBLIC_BASE_URL: `${apiOrigin}/v1`,
      }),
    );
    services.push(
      await startService('gateway', gatewayPort, {
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        CATALOGUE_SERVICE_URL: `http://127.0.0.1:${cataloguePort}`,
        MCP_URL: apiOrigin,
      }),
    );
    // The key `npm start` would make, allowed from the storefront's own origin only.
    const { apiKey } = await createKeyStore({ redis: redis.redis, prefix: redis.prefix }).create({
      owner: 'storefront-test',
      quota: 10_000,
      kind: 'publishable',
      origins: [allowedOrigin],
    });
    expect(apiKey).toMatch(/^fcs_pk_/);
    for (const [path, asset] of await buildAssets({ apiUrl: `${apiOrigin}/v1`, publishableKey: apiKey })) assets.set(path, asset);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map(close));
    await Promise.all(services.map((service) => service.stop()));
    await Promise.all([es?.cleanup(), redis?.cleanup()]);
  });

  /** A storefront server on a port the kernel picks, serving `assets` as they are when asked. */
  async function listenOnFreePort(assets: Assets): Promise<number> {
    const server = createStorefrontServer(assets, `${apiOrigin}/v1`);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  }

  /** A fresh page that works offline (anything but the storefront and the API is refused and remembered). */
  async function openPage(address: string, expectedErrors: RegExp | null = null): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if ([allowedOrigin, foreignOrigin, apiOrigin].some((allowed) => url.startsWith(`${allowed}/`))) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !(expectedErrors?.test(message.text()) ?? false))
        consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
    await page.goto(address);
    return { context, page };
  }

  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

  it('on an allowed origin: suggestions as the shopper types, search, a facet, paging, a result and its similar list', async () => {
    const { context, page } = await openPage(allowedOrigin);
    // The start page lists the most popular fragrances with their facets.
    await expect.poll(() => page.locator('#results > li').count(), { timeout: 30_000 }).toBe(12);
    expect(await page.getByRole('heading', { level: 2, name: 'Popular fragrances' }).isVisible()).toBe(true);
    for (const facet of ['Brand', 'Concentration', 'Notes', 'Season'])
      expect(await page.getByRole('group', { name: facet }).isVisible()).toBe(true);

    // Search as you type: a combobox whose listbox fills from /v1/suggest.
    const combobox = page.getByRole('combobox', { name: 'Search fragrances, brands, notes' });
    const suggested = page.waitForResponse((answer) => answer.url().startsWith(`${apiOrigin}/v1/suggest?q=rose`));
    await combobox.pressSequentially('rose', { delay: 40 });
    expect((await suggested).status()).toBe(200);
    const listbox = page.getByRole('listbox', { name: 'Suggestions' });
    await listbox.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await combobox.getAttribute('aria-expanded')).toBe('true');
    const options = listbox.getByRole('option');
    expect(await options.count()).toBeGreaterThan(1);
    // Arrow keys move the active option (focus stays in the input); Escape closes the list.
    await combobox.press('ArrowDown');
    expect(await combobox.getAttribute('aria-activedescendant')).toBe('suggestion-0');
    expect(await options.first().getAttribute('aria-selected')).toBe('true');
    await combobox.press('ArrowDown');
    expect(await combobox.getAttribute('aria-activedescendant')).toBe('suggestion-1');
    expect(await focusedId(page)).toBe('search-input');
    await combobox.press('Escape');
    expect(await listbox.isHidden()).toBe(true);
    expect(await combobox.getAttribute('aria-expanded')).toBe('false');

    // Enter searches; the address keeps the search.
    await combobox.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Results for “rose”' }).waitFor();
    expect(new URL(page.url()).search).toBe('?q=rose');
    const summary = page.locator('#results-summary');
    await expect.poll(() => summary.textContent()).toMatch(/^1–12 of \d+ fragrances$/);
    const total = Number(/of (\d+) fragrances/.exec((await summary.textContent()) ?? '')?.[1]);
    expect(total).toBeGreaterThan(12);

    // A facet narrows the search (counts come from the API), and keeps its focus when redrawn.
    const winter = page.getByRole('group', { name: 'Season' }).getByRole('checkbox', { name: /^winter/ });
    await winter.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => new URL(page.url()).searchParams.get('season')).toBe('winter');
    await expect
      .poll(async () => Number(/of (\d+) fragrances/.exec((await summary.textContent()) ?? '')?.[1] ?? total))
      .toBeLessThan(total);
    expect(await winter.isChecked()).toBe(true);
    expect(await focusedId(page)).toMatch(/^facet-season-winter/);
    await page.keyboard.press('Space');
    await expect.poll(() => new URL(page.url()).searchParams.get('season')).toBeNull();
    await expect.poll(() => summary.textContent()).toBe(`1–12 of ${total} fragrances`);

    // Paging moves the focus to the results' heading.
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => summary.textContent()).toBe(`13–${Math.min(24, total)} of ${total} fragrances`);
    expect(await page.locator('#page-status').textContent()).toBe(`Page 2 of ${Math.ceil(total / 12)}`);
    expect(await focusedId(page)).toBe('results-heading');
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');

    // A result opens its detail card (focus on its name) and the similar list fills in.
    const first = page.locator('#results a[data-open]').first();
    const name = (await first.textContent()) ?? '';
    const openedId = await first.getAttribute('data-open');
    await first.click();
    const detail = page.getByRole('region', { name });
    await detail.waitFor({ timeout: 15_000 });
    expect(await focusedId(page)).toBe('detail-name');
    expect(await detail.getByRole('heading', { level: 3, name: 'Similar fragrances' }).isVisible()).toBe(true);
    await expect.poll(() => page.locator('#similar li').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await page.locator('#similar li').first().textContent()).toMatch(/% alike/);
    await page.screenshot({ path: screenshotPath('storefront.png') });
    if (process.env.STOREFRONT_SCREENSHOT === 'update') copyFileSync(screenshotPath('storefront.png'), README_SHOT);

    // A similar fragrance opens in the same card; Escape closes it and gives the focus back.
    const similar = page.locator('#similar a[data-open]').first();
    const similarName = (await similar.textContent()) ?? '';
    await similar.click();
    await page.getByRole('heading', { level: 2, name: similarName, exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#detail').isHidden()).toBe(true);
    // The focus goes back to the result the card was opened from.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-open'))).toBe(openedId);
    expect(new URL(page.url()).searchParams.get('id')).toBeNull();

    // A fragrance suggestion chosen from the keyboard opens its card directly.
    await combobox.fill('');
    await combobox.pressSequentially(records[0]!.name.slice(0, 8), { delay: 40 });
    await listbox.waitFor({ state: 'visible', timeout: 15_000 });
    const kinds = await options.evaluateAll((elements) => elements.map((element) => element.className));
    const index = kinds.findIndex((kind) => kind.includes('suggestion-fragrance'));
    expect(index).toBeGreaterThanOrEqual(0);
    const chosen = (await options.nth(index).locator('.suggestion-text').textContent()) ?? '';
    for (let i = 0; i <= index; i += 1) await combobox.press('ArrowDown');
    await combobox.press('Enter');
    await page.getByRole('heading', { level: 2, name: chosen, exact: true }).waitFor({ timeout: 15_000 });
    expect(await focusedId(page)).toBe('detail-name');
    expect(new URL(page.url()).searchParams.get('id')).toMatch(/^[0-9a-f-]{36}$/);

    // A brand suggestion becomes the brand filter (the text box empties: no text is searched).
    const brand = records[0]!.brand;
    await combobox.fill('');
    await combobox.pressSequentially(brand.slice(0, 5), { delay: 40 });
    await listbox.waitFor({ state: 'visible', timeout: 15_000 });
    const brandIndex = (await options.evaluateAll((elements) => elements.map((element) => element.className))).findIndex((kind) =>
      kind.includes('suggestion-brand'),
    );
    expect(brandIndex).toBeGreaterThanOrEqual(0);
    for (let i = 0; i <= brandIndex; i += 1) await combobox.press('ArrowDown');
    await combobox.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('brand')).toBe(brand);
    await expect
      .poll(() =>
        page
          .getByRole('group', { name: 'Brand' })
          .getByRole('radio', { name: new RegExp(`^${brand.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\d`) })
          .isChecked(),
      )
      .toBe(true);
    expect(await combobox.inputValue()).toBe('');
    await expect
      .poll(() => page.locator('#results .card-line').allTextContents())
      .toSatisfy((lines: string[]) => lines.length > 0 && lines.every((line) => line.startsWith(`${brand} · `)));

    // Enter before the suggestions arrive searches, and no late answer opens the list over the results.
    await combobox.fill('vetiver');
    await combobox.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'Results for “vetiver”' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await listbox.isHidden()).toBe(true);

    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  }, 180_000);

  it('a link to a page past the last shows the last page', async () => {
    const { context, page } = await openPage(`${allowedOrigin}/?q=rose&page=80`);
    const summary = page.locator('#results-summary');
    await expect.poll(() => summary.textContent(), { timeout: 30_000 }).toMatch(/^\d+–(\d+) of \1 fragrances$/);
    const pages = Number(/Page \d+ of (\d+)/.exec((await page.locator('#page-status').textContent()) ?? '')?.[1]);
    expect(new URL(page.url()).searchParams.get('page')).toBe(String(pages));
    expect(await page.locator('#results > li').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('on a foreign origin: the API refuses the key and the page says so, naming the origin', async () => {
    const refused = /Failed to load resource: the server responded with a status of 403/;
    const { context, page } = await openPage(foreignOrigin, refused);
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible', timeout: 30_000 });
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('The catalogue API refused this storefront');
    expect(text).toContain('403');
    expect(text).toContain(foreignOrigin);
    expect(await page.locator('#results > li').count()).toBe(0);
    // Nothing to page through (the pager once showed here: a display rule beat `hidden`).
    expect(await page.getByRole('navigation', { name: 'Result pages' }).isHidden()).toBe(true);
    await page.screenshot({ path: screenshotPath('storefront-refused.png') });
    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
    await context.close();
  }, 60_000);
});
