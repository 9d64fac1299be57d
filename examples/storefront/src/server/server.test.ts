import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen } from '@fragrance/testkit';
import { buildAssets, pageHtml } from './assets.ts';
import { contentSecurityPolicy, createStorefrontServer } from './server.ts';

const SETTINGS = { apiUrl: 'http://127.0.0.1:8080/v1', publishableKey: 'fcs_pk_abc' };

describe('the storefront server', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createStorefrontServer(await buildAssets(SETTINGS), SETTINGS.apiUrl);
    url = await listen(server);
  });
  afterAll(() => close(server));

  it('serves the page with its API settings, a CSP that lets it reach only the API, and no cache', async () => {
    const res = await fetch(`${url}/?q=rose&id=x`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy(SETTINGS.apiUrl));
    expect(res.headers.get('content-security-policy')).toContain('connect-src http://127.0.0.1:8080;');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    expect(html).toContain(`<script type="application/json" id="storefront-config">${JSON.stringify(SETTINGS)}</script>`);
    expect(html).toContain('<script type="module" src="/app.js"></script>');
    // An inline icon: browsers would otherwise ask for /favicon.ico and log its 404 as an error.
    expect(html).toContain('<link rel="icon" href="data:," />');
    expect((await fetch(`${url}/favicon.ico`)).status).toBe(404);
  });

  it('serves the bundle esbuild built from the TypeScript, with its source map and the styles', async () => {
    const js = await fetch(`${url}/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await js.text();
    expect(code).toContain('storefront-config');
    expect(code).not.toMatch(/^import /m); // one bundle: nothing left to fetch
    expect(code.trimEnd().endsWith('//# sourceMappingURL=app.js.map')).toBe(true);
    expect(JSON.parse(await (await fetch(`${url}/app.js.map`)).text())).toMatchObject({ version: 3 });
    expect((await fetch(`${url}/storefront.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers HEAD without a body, 404 for other paths, 405 for other methods, and /health', async () => {
    const head = await fetch(`${url}/app.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    expect(await head.text()).toBe('');
    expect((await fetch(`${url}/src/page/main.ts`)).status).toBe(404);
    expect((await fetch(`${url}/.env.local`)).status).toBe(404);
    const post = await fetch(url, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await (await fetch(`${url}/health`)).text()).toBe('ok\n');
  });
});

describe('the page settings', () => {
  it('cannot end the data block, whatever the values hold', () => {
    const html = pageHtml('<head><!-- STOREFRONT_CONFIG --></head>', {
      apiUrl: 'https://x/v1',
      publishableKey: '</script><script>alert(1)</script>',
    });
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).toContain('\\u003c/script>\\u003cscript>');
  });
});
