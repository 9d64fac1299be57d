import { createServer } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen } from '@fragrance/testkit';
import { DOCS_CSP, HOME_CSP, docsRoutes } from './docs.ts';

const server = createServer(express().use(docsRoutes()));
let base = '';
beforeAll(async () => {
  base = await listen(server);
});
afterAll(() => close(server));

describe('the home page and the reference', () => {
  it('serves the home page as a complete document under its script-free policy', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(HOME_CSP);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
    expect(html).toContain('<title>Fragrance Catalogue API</title>\n<style>');
    expect(html).toContain('<a href="/docs">API reference</a>');
    expect(html).not.toContain('<script');
    expect(html.trimEnd().endsWith('</body>\n</html>')).toBe(true);
  });

  it('serves the reference page loading only its own two scripts', async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(DOCS_CSP);
    const html = await res.text();
    expect(html).toContain('<title>Fragrance Catalogue API reference</title>\n</head>');
    expect([...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1])).toEqual([
      '/docs/assets/scalar.js',
      '/docs/assets/init.js',
    ]);
  });

  it('refuses writes with 405 naming the allowed methods', async () => {
    const res = await fetch(`${base}/docs`, { method: 'POST' });
    expect(res.status).toBe(405);
  });
});
