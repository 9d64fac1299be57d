import { describe, expect } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { Problem } from '@fragrance/contracts';
import { bearer, gatewayTest } from './testing/app.ts';

let now = Date.parse('2026-05-01T10:00:00Z');
const HOUR = 3_600_000;

/** The file's gateway and key store on a clock the tests move (`now`). */
const it = gatewayTest
  .extend('gatewayOptions', { scope: 'file' }, { clock: () => now })
  .extend('keys', { scope: 'file' }, ({ redis }) => createKeyStore({ redis: redis.redis, prefix: redis.prefix, clock: () => now }))
  .extend(
    'get',
    { scope: 'file' },
    ({ gateway }) =>
      (path: string, apiKey: string, headers: Record<string, string> = {}) =>
        fetch(`${gateway.url}${path}`, { headers: { ...bearer(apiKey), ...headers } }),
  );

// Key lifecycle at the edge, on a clock the test moves: expiry, rolls with a grace period,
// scopes of secret keys, and the last use (time and address) operators see.
describe('key lifecycle at the edge (real Redis, fake clock)', () => {
  async function refusal(res: Response, status: number, code: string): Promise<Problem> {
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const problem = Problem.parse(await res.json());
    expect(problem).toMatchObject({ status, code });
    return problem;
  }

  it('answers an expired key 401 key_expired, counting nothing', async ({ keys, get }) => {
    const { apiKey, record } = await keys.create({ owner: 'Temp', quota: 100, expiresAt: now + HOUR });
    expect((await get('/v1/fragrances?query=rose', apiKey)).status).toBe(200);
    now += HOUR;
    for (const path of ['/v1/fragrances?query=rose', '/v1/me']) {
      const res = await get(path, apiKey);
      const problem = await refusal(res, 401, 'key_expired');
      expect(problem.detail).toContain('2026-05-01T11:00:00.000Z');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="fragrance-catalogue", error="invalid_token"/);
    }
    expect(await keys.usedToday(record.id, 'UTC')).toBe(1);
  });

  it('rolls a key: both work during the grace, then the old one refuses naming its successor', async ({ keys, get }) => {
    const { apiKey: oldKey, record } = await keys.create({
      kind: 'publishable',
      owner: 'Shop',
      quota: 500,
      origins: ['https://shop.example'],
      maxLimit: 20,
    });
    const page = { origin: 'https://shop.example' };
    const rolled = await keys.roll(record.id, { graceMs: 7 * 24 * HOUR });
    expect(rolled.record).toMatchObject({
      kind: 'publishable',
      owner: 'Shop',
      quota: 500,
      origins: ['https://shop.example'],
      maxLimit: 20,
      rolledFrom: record.id,
    });
    expect(rolled.old.successor).toEqual({ id: rolled.record.id, hint: rolled.record.hint });
    expect(rolled.apiKey.startsWith(rolled.record.hint.replace('…', ''))).toBe(true);
    for (const key of [oldKey, rolled.apiKey]) expect((await get('/v1/suggest?q=ro', key, page)).status).toBe(200);
    // The successor keeps the restrictions: same origins, same largest limit.
    expect((await get('/v1/suggest?q=ro', rolled.apiKey, { origin: 'https://other.example' })).status).toBe(403);
    expect((await get('/v1/suggest?limit=21', rolled.apiKey, page)).status).toBe(400);

    now += 7 * 24 * HOUR - 1;
    expect((await get('/v1/suggest?q=ro', oldKey, page)).status).toBe(200);
    now += 1;
    const problem = await refusal(await get('/v1/suggest?q=ro', oldKey, page), 401, 'key_rolled');
    expect(problem.detail).toContain(rolled.record.hint);
    expect(problem.detail).not.toContain(rolled.apiKey);
    expect((await get('/v1/suggest?q=ro', rolled.apiKey, page)).status).toBe(200);
    // Rolling twice is refused: roll the successor.
    await expect(keys.roll(record.id, { graceMs: 0 })).rejects.toThrow(/already rolled/);
  });

  it('limits a secret key to its scopes (403 insufficient_scope), /v1/me answering any secret key', async ({ keys, get }) => {
    const { apiKey, record } = await keys.create({ owner: 'Searcher', quota: 100, scopes: ['search'] });
    expect((await get('/v1/fragrances?query=rose', apiKey)).status).toBe(200);
    expect((await get('/v1/suggest?q=ro', apiKey)).status).toBe(200);
    expect((await get('/v1/me', apiKey)).status).toBe(200);
    for (const path of ['/v1/fragrances/export', '/v1/usage', '/v1/usage/searches']) {
      const problem = await refusal(await get(path, apiKey), 403, 'insufficient_scope');
      expect(problem.detail).toMatch(/scopes do not include (export|usage)/);
    }
    const usageOnly = await keys.create({ owner: 'Accountant', quota: 100, scopes: ['usage'] });
    expect((await get('/v1/usage', usageOnly.apiKey)).status).toBe(200);
    await refusal(await get('/v1/fragrances?query=rose', usageOnly.apiKey), 403, 'insufficient_scope');
    expect(await keys.usedToday(record.id, 'UTC')).toBe(2);
    expect(await keys.usedToday(usageOnly.record.id, 'UTC')).toBe(0);
  });

  it('records the last use: time and client address, at most once a minute', async ({ keys, get }) => {
    const { apiKey, record } = await keys.create({ owner: 'Tracked', quota: 100 });
    expect((await keys.get(record.id)).lastUsedAt).toBeUndefined();
    expect((await get('/v1/fragrances?query=rose', apiKey)).status).toBe(200);
    const first = await keys.get(record.id);
    expect(first.lastUsedAt).toBe(new Date(now).toISOString());
    expect(first.lastUsedFrom).toBe('127.0.0.1');
    now += 30_000;
    await get('/v1/me', apiKey);
    expect((await keys.get(record.id)).lastUsedAt).toBe(first.lastUsedAt);
    now += 30_000;
    await get('/v1/me', apiKey);
    expect((await keys.get(record.id)).lastUsedAt).toBe(new Date(now).toISOString());
  });
});
