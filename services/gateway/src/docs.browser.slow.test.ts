// GET /docs in a real browser (Debian's chromium driven by playwright-core; nothing downloaded):
// the reference renders every operation of the OpenAPI document from our own server only, with
// no console error (a CSP violation is one), and "try it" with a real key searches the real
// catalogue service over a real Elasticsearch index. Screenshots go to .local/screenshots.
import { describe, expect } from 'vitest';
import { buildOpenApiDocument } from '@fragrance/contracts';
import { makeRecord } from '@fragrance/search/testing';
import { freePort } from '@fragrance/testkit';
import { launchChromiumContext, screenshotPath } from '@fragrance/testkit/browser';
import { catalogueGatewayTest, startCatalogueProcess } from './testing/catalogue.ts';

const records = Array.from({ length: 30 }, (_, i) => makeRecord({ name: `Vetiver Study ${i}`, brand: `Maison ${i % 3}`, votes: 100 - i }));

const it = catalogueGatewayTest
  .extend('catalogueRecords', { scope: 'file' }, records)
  // The document's server must be this edge (the page's own origin): the catalogue is told the
  // gateway's address, so it starts second, on a port the gateway already forwards to.
  .extend('cataloguePort', { scope: 'file' }, () => freePort())
  .extend('gatewayOptions', { scope: 'file' }, ({ cataloguePort }) => ({
    upstreamUrl: `http://127.0.0.1:${cataloguePort}`,
    env: { UPSTREAM_TIMEOUT_MS: '10000' },
  }))
  .extend('catalogue', { scope: 'file' }, async ({ es, redis, catalogueRecords, cataloguePort, gateway }, { onCleanup }) => {
    const catalogue = await startCatalogueProcess({
      es,
      redis,
      records: catalogueRecords,
      port: cataloguePort,
      env: { PUBLIC_BASE_URL: `${gateway.url}/v1` },
    });
    onCleanup(() => catalogue.stop());
    return catalogue;
  })
  .extend('apiKey', { scope: 'file' }, async ({ keys }) => (await keys.create({ owner: 'docs-reader', quota: 100 })).apiKey)
  // A browser that works offline: any request to another origin than the gateway's is refused and remembered in `outside`.
  .extend('outside', { scope: 'file' }, [] as string[])
  .extend('context', { scope: 'file' }, async ({ gateway, outside }, { onCleanup }) => {
    const context = await launchChromiumContext({ viewport: { width: 1400, height: 900 } });
    onCleanup(() => context.close());
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith(gateway.url) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    return context;
  });

// The first test waits for the catalogue process and the browser too.
describe('the API reference in a real browser', { timeout: 240_000 }, () => {
  /** The DOM calls made inside the page (the project compiles without the DOM lib). */
  interface Labelled {
    getAttribute(name: string): string | null;
  }

  it('renders every operation from our own server, with no console error; "try it" searches with a real key', async ({
    catalogue,
    gateway,
    context,
    apiKey,
    outside,
  }) => {
    expect(gateway.config.CATALOGUE_SERVICE_URL).toBe(catalogue.url);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    const response = await page.goto(`${gateway.url}/docs`, { waitUntil: 'domcontentloaded', timeout: 90_000 });
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // Rendered from the document: its title, then every operation's summary.
    await page.getByRole('heading', { name: 'Fragrance Catalogue API' }).first().waitFor({ timeout: 90_000 });
    const operations = Object.values(buildOpenApiDocument().paths ?? {}).flatMap((item) => (item?.get ? [item.get] : []));
    expect(operations.length).toBeGreaterThanOrEqual(10);
    const text = await page.locator('body').innerText();
    for (const operation of operations) expect(text, operation.operationId).toContain(operation.summary);
    // The introduction explains the quota headers and the error catalogue.
    for (const phrase of ['RateLimit-Remaining', 'retry_after_seconds', 'daily_quota_exceeded', 'invalid_cursor'])
      expect(text).toContain(phrase);
    await page.screenshot({ path: screenshotPath('docs-reference.png') });

    // The customer types their key once in the reference; "Test Request" on the search carries it.
    await page.getByPlaceholder('Token').first().fill(apiKey);
    await page.getByText('Search and filter the catalogue').first().click();
    await page
      .locator('button.show-api-client-button')
      .filter({ hasText: /\(get \/fragrances\)$/ })
      .click();
    const client = page.getByRole('dialog');
    await client.getByRole('button', { name: /^Send get request/ }).waitFor({ timeout: 30_000 });
    expect(await client.getByPlaceholder('Token').inputValue()).toBe(apiKey);
    // Only `query`: the client pre-fills the examples of other parameters (brand, perfumer, …).
    const included = client.locator('input[type=checkbox][aria-label^="Include "]:checked');
    for (const label of await included.evaluateAll((elements) =>
      elements.map((element) => (element as unknown as Labelled).getAttribute('aria-label')),
    )) {
      if (label && label !== 'Include accept in request') await client.locator(`input[aria-label="${label}"]`).uncheck({ force: true });
    }
    const queryName = client.locator('[contenteditable="true"][aria-label=" Key"]').filter({ hasText: /^query$/ });
    await queryName.locator('xpath=following::div[@contenteditable="true" and @aria-label=" Value"][1]').fill('vetiver');
    const searched = page.waitForResponse((answer) => answer.url().startsWith(`${gateway.url}/v1/fragrances?`), { timeout: 30_000 });
    await client.getByRole('button', { name: /^Send get request/ }).click();
    const answer = await searched;
    expect(answer.url()).toBe(`${gateway.url}/v1/fragrances?query=vetiver`);
    expect(answer.status()).toBe(200);
    expect(answer.headers()['ratelimit-remaining']).toBe('99');
    await expect.poll(() => client.innerText(), { timeout: 30_000 }).toContain('Vetiver Study 0');
    await page.screenshot({ path: screenshotPath('docs-try-it.png') });

    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('GET / is a home page linking the reference, the document and the MCP endpoint, nothing the public edge does not route', async ({
    gateway,
  }) => {
    const res = await fetch(`${gateway.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const html = await res.text();
    for (const link of ['href="/docs"', 'href="/v1/openapi.json"', '/mcp', 'docs/api-guide.md']) expect(html).toContain(link);
    // /health is the operators' (probes, npm start): the Kubernetes Ingress does not route it.
    expect(html).not.toContain('href="/health"');
    expect((await fetch(`${gateway.url}/docs`, { method: 'POST' })).status).toBe(405);
    const bundle = await fetch(`${gateway.url}/docs/assets/scalar.js`);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(bundle.headers.get('content-encoding')).toBe('gzip');
    const plain = await fetch(`${gateway.url}/docs/assets/scalar.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect((await bundle.arrayBuffer()).byteLength).toBe((await plain.arrayBuffer()).byteLength);
  });
});
