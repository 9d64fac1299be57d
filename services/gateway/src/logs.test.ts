import { createServer } from 'node:http';
import express from 'express';
import { describe, expect } from 'vitest';
import { API_KEY_PREFIX, generateApiKey } from '@fragrance/api-keys';
import { notFoundHandler, problemHandler, requestLogger } from '@fragrance/http';
import { close, listen } from '@fragrance/testkit';
import { bearer, captureLogs, gatewayTest } from './testing/app.ts';

/** The file's gateway and an upstream built like every service, each logging to its own capture. */
const it = gatewayTest
  .extend('gatewayLogs', { scope: 'file' }, () => captureLogs('gateway'))
  .extend('upstreamLogs', { scope: 'file' }, () => captureLogs('catalogue'))
  .extend('gatewayOptions', { scope: 'file' }, async ({ gatewayLogs, upstreamLogs }, { onCleanup }) => {
    // The shared request logger, then its routes.
    const app = express();
    app.use(requestLogger(upstreamLogs.logger));
    app.get('/v1/fragrances', (_req, res) => void res.json({ data: [] }));
    app.get('/health', (_req, res) => void res.send('ok'));
    app.use(notFoundHandler);
    app.use(problemHandler);
    const upstream = createServer(app);
    const upstreamUrl = await listen(upstream);
    onCleanup(() => close(upstream));
    return { upstreamUrl, logger: gatewayLogs.logger };
  });

describe('logs', () => {
  it('never contain an API key, whatever the request', async ({ keys: store, gateway, gatewayLogs, upstreamLogs }) => {
    const good = await store.create({ owner: 'logged', quota: 1, burst: 100 });
    const revoked = await store.create({ owner: 'revoked', quota: 2 });
    await store.revoke(revoked.record.id);
    const unknown = generateApiKey();
    const page = await store.create({ kind: 'publishable', owner: 'page', quota: 1, origins: ['https://shop.example'] });
    const keys = [good.apiKey, revoked.apiKey, unknown, page.apiKey, generateApiKey('publishable')];
    const requests: [string, Record<string, string>][] = [];
    for (const key of keys) {
      requests.push(['/v1/fragrances?query=rose', bearer(key)]);
      requests.push(['/v1/me', bearer(key)]);
      requests.push([`/v1/fragrances?api_key=${key}`, bearer(key)]); // a key in the URL, too
      requests.push([`/v1/${key}`, bearer(key)]);
      requests.push(['/v1/fragrances', { authorization: `Basic ${key}` }]);
      requests.push(['/v1/fragrances', { authorization: `Bearer ${key}x` }]);
      requests.push(['/v1/fragrances', { 'x-api-key': key, cookie: `k=${key}` }]);
      // From a page: a publishable key's use, a secret key's refusal (403), a preflight.
      requests.push(['/v1/fragrances?query=rose', { ...bearer(key), origin: 'https://shop.example' }]);
      requests.push([`/v1/suggest?q=${key}`, { ...bearer(key), referer: `https://shop.example/?k=${key}` }]);
    }
    // Enough requests on the good key to run into the daily quota (429) as well.
    for (const [path, headers] of requests) await (await fetch(`${gateway.url}${path}`, { headers })).arrayBuffer();
    const statuses = new Set(gatewayLogs.lines.map((line) => (JSON.parse(line) as { res?: { status: number } }).res?.status));
    expect(statuses).toEqual(new Set([200, 401, 403, 404, 429, undefined]));

    const all = [...gatewayLogs.lines, ...upstreamLogs.lines];
    expect(gatewayLogs.lines.length).toBeGreaterThan(requests.length - 1);
    for (const key of keys) {
      const secret = key.slice(API_KEY_PREFIX.length);
      expect(all.filter((line) => line.includes(secret.slice(0, 16)))).toEqual([]);
    }
  });

  it('carry the same request id at the gateway and the upstream, generated or passed in', async ({
    keys,
    gateway,
    gatewayLogs,
    upstreamLogs,
  }) => {
    const { apiKey } = await keys.create({ owner: 'traced', quota: 10 });
    const passed = await fetch(`${gateway.url}/v1/fragrances`, { headers: { ...bearer(apiKey), 'x-request-id': 'trace-me-42' } });
    expect(passed.status).toBe(200);
    const generated = await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) });
    const generatedId = generated.headers.get('x-request-id');
    expect(generatedId).toMatch(/^[0-9a-f-]{36}$/);
    for (const id of ['trace-me-42', generatedId!]) {
      const idOf = (line: string) => (JSON.parse(line) as { req?: { id?: string } }).req?.id;
      expect(gatewayLogs.lines.filter((line) => idOf(line) === id)).toHaveLength(1);
      expect(upstreamLogs.lines.filter((line) => idOf(line) === id)).toHaveLength(1);
    }
  });
});
