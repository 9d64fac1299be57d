import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { freePort, startLocalRedis, stopLocalRedis } from '@fragrance/testkit';
import { authTest } from './testing/app.ts';
import { registerClient } from './testing/flow.ts';

// A Redis of this file's own: stopping the shared test Redis would break every other suite.
const test = authTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('ownRedis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const port = await freePort();
    const local = { name: `auth-outage-${port}`, port };
    const url = await startLocalRedis(local);
    // The client main.ts opens (request-path role); its outage logging goes to a silent logger.
    const client = createRedisClient(
      { REDIS_URL: url, REDIS_COMMAND_TIMEOUT_MS: 500 },
      createLogger('auth-test', 'silent'),
      'request-path',
    );
    onCleanup(async () => {
      client.disconnect();
      await stopLocalRedis(local);
    });
    await waitForRedis(client);
    return { port, client, stop: () => stopLocalRedis(local), start: () => startLocalRedis(local) };
  })
  .extend('authOptions', { scope: 'file' }, ({ ownRedis }) => ({ redis: ownRedis.client, prefix: 'auth-outage:' }));

describe('auth while Redis is down', () => {
  test('answers 503 problem+json quickly, never a 500, and recovers when Redis returns', async ({ auth, ownRedis }) => {
    await registerClient(auth.issuer, ['http://127.0.0.1:42000/cb'], 'Before outage');
    await ownRedis.stop();

    const started = Date.now();
    const res = await fetch(`${auth.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'During outage', redirect_uris: ['http://127.0.0.1:42000/cb'] }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(((await res.json()) as { code: string }).code).toBe('service_unavailable');
    expect(Date.now() - started).toBeLessThan(2_000); // fails fast, not after retries
    expect((await fetch(`${auth.issuer}/health`)).status).toBe(503);

    await ownRedis.start();
    await expect.poll(async () => (await fetch(`${auth.issuer}/health`)).status, { timeout: 10_000, interval: 200 }).toBe(200);
    await expect(registerClient(auth.issuer, ['http://127.0.0.1:42000/cb'], 'After outage')).resolves.toBeTruthy();
  });

  test('answers 503 with Retry-After, never a 500, when Redis stops replying in the middle of a request', async ({ auth, ownRedis }) => {
    // Connected and "ready", but silent: every command times out (REDIS_COMMAND_TIMEOUT_MS 500),
    // as in the seconds of a Sentinel failover. Both paths used to answer 500: our own routes
    // (the registration guard counts in Redis) and oidc-provider's (its storage adapter).
    const admin = new Redis({ port: ownRedis.port, lazyConnect: true });
    await admin.connect();
    try {
      await admin.call('CLIENT', 'PAUSE', '4000', 'ALL');
      const registration = await fetch(`${auth.issuer}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'During a pause', redirect_uris: ['http://127.0.0.1:42000/cb'] }),
      });
      expect(registration.status).toBe(503);
      expect(registration.headers.get('retry-after')).toBeTruthy();
      expect(((await registration.json()) as { code: string }).code).toBe('service_unavailable');

      const token = await fetch(`${auth.issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'a'.repeat(43), client_id: 'some-client' }),
      });
      expect(token.status).toBe(503);
      expect(token.headers.get('retry-after')).toBeTruthy();
      expect(((await token.json()) as { error: string }).error).toBe('temporarily_unavailable');
    } finally {
      await admin.call('CLIENT', 'UNPAUSE').catch(() => undefined);
      admin.disconnect();
    }
    await expect(registerClient(auth.issuer, ['http://127.0.0.1:42000/cb'], 'After the pause')).resolves.toBeTruthy();
  });
});
