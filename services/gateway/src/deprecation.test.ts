import { describe, expect } from 'vitest';
import { ConfigError } from '@fragrance/config';
import { loadConfig } from './config.ts';
import { bearer, gatewayTest } from './testing/app.ts';

const NOTICES = {
  '/v1/brands/:slug': { deprecation: '2027-01-01T00:00:00Z', sunset: '2027-07-01T00:00:00Z', link: 'https://api.example/docs/api-guide' },
  '/v1/usage': { deprecation: '2027-02-01T00:00:00Z' },
};

/** GET on the file's gateway, which announces NOTICES, with a key unless told otherwise. */
const it = gatewayTest
  .extend('gatewayOptions', { scope: 'file' }, { env: { API_DEPRECATIONS: JSON.stringify(NOTICES) } })
  .extend('get', { scope: 'file' }, async ({ gateway, keys }) => {
    const { apiKey } = await keys.create({ owner: 'deprecations', quota: 100 });
    return (path: string, headers: Record<string, string> = bearer(apiKey)) => fetch(`${gateway.url}${path}`, { headers });
  });

describe('deprecations announced per route (API_DEPRECATIONS, real Redis)', () => {
  it('puts Deprecation, Sunset and Link on every answer of a deprecated route, which answers as before', async ({ get }) => {
    for (const res of [await get('/v1/brands/chanel'), await get('/v1/brands/chanel', {})]) {
      expect([200, 401]).toContain(res.status);
      expect(res.headers.get('deprecation')).toBe('@1798761600');
      expect(res.headers.get('sunset')).toBe('Thu, 01 Jul 2027 00:00:00 GMT');
      expect(res.headers.get('link')).toBe(
        '<https://api.example/docs/api-guide>; rel="deprecation"; type="text/html", <https://api.example/docs/api-guide>; rel="sunset"; type="text/html"',
      );
    }
    const res = await get('/v1/brands/chanel');
    expect(await res.json()).toMatchObject({ url: '/v1/brands/chanel' });
    const usage = await get('/v1/usage');
    expect(usage.status).toBe(200);
    expect(usage.headers.get('deprecation')).toBe('@1801440000');
    expect(usage.headers.get('sunset')).toBeNull();
  });

  it('leaves every other route alone', async ({ get }) => {
    for (const path of ['/v1/brands', '/v1/fragrances', '/v1/me']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('deprecation')).toBeNull();
      expect(res.headers.get('sunset')).toBeNull();
      expect(res.headers.get('link')).toBeNull();
    }
  });

  it('refuses a configuration it cannot announce, naming the variable', () => {
    const bad = [
      'not json',
      JSON.stringify({ '/v1/brand': NOTICES['/v1/usage'] }),
      JSON.stringify({ '/v1/usage': { deprecation: '2027-02-01T00:00:00Z', sunset: '2026-02-01T00:00:00Z' } }),
    ];
    for (const value of bad) {
      expect(() => loadConfig({ API_DEPRECATIONS: value })).toThrow(ConfigError);
      try {
        loadConfig({ API_DEPRECATIONS: value });
      } catch (error) {
        expect((error as ConfigError).message).toMatch(/API_DEPRECATIONS/);
      }
    }
    expect(loadConfig({}).API_DEPRECATIONS).toEqual({});
  });
});
