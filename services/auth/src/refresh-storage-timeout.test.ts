import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { close, listen, startFaultProxy, testRedis, type FaultProxy, type TestRedis } from '@fragrance/testkit';
import type { Redis } from 'ioredis';
import { buildApp, type AuthService } from './app.ts';
import { exchange, obtainCode, registerClient, token } from './testing/flow.ts';

// The chaos bench saw a token refresh answer 500 while the machine was loaded (a worker killed
// mid-run): the account lookup oidc-provider makes on every refresh (findAccount) reads Redis
// outside the storage adapter, so a command timeout there was a server_error. Here Redis stops
// answering exactly during that lookup (a fault proxy freezes the auth's connection).
describe('a token refresh while Redis times out on the account lookup', () => {
  let store: TestRedis;
  let proxy: FaultProxy;
  let redis: Redis;
  let auth: AuthService;
  let issuer: string;
  const server = createServer();

  beforeAll(async () => {
    store = await testRedis('auth-refresh-timeout');
    proxy = await startFaultProxy(store.url);
    const { port } = new URL(proxy.url);
    redis = createRedisClient(
      { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: 300 },
      createLogger('auth-test', 'silent'),
      'request-path',
    );
    await waitForRedis(redis);
    issuer = await listen(server);
    auth = await buildApp({
      issuer,
      resource: `${issuer}/mcp`,
      redis,
      prefix: store.prefix,
      logger: createLogger('auth-test', 'silent'),
      ttl: { accessToken: 3_600, authorizationCode: 60, session: 3_600, refreshTokenIdle: 86_400, refreshTokenMax: 864_000 },
      registrationLimitPerHour: 1_000,
      login: { perAccount: 5, perAddress: 50, windowSeconds: 900 },
      trustProxy: 'loopback',
      scrypt: { N: 1024, r: 8, p: 1 },
    });
    server.on('request', auth.app);
  });
  afterAll(async () => {
    proxy.set('pass');
    await close(server);
    redis.disconnect();
    await proxy.close();
    await store.cleanup();
  });

  it('answers 503 temporarily_unavailable with Retry-After, and the same refresh token works afterwards', async () => {
    const person = { email: 'refresh-timeout@example.com', password: 'a long enough password here' };
    await auth.users.create(person.email, person.password);
    const redirectUri = 'http://127.0.0.1:42000/cb';
    const clientId = await registerClient(issuer, [redirectUri]);
    const code = await obtainCode(issuer, clientId, redirectUri, person, { scope: 'catalogue:read offline_access', prompt: 'consent' });
    const issued = await exchange(issuer, clientId, redirectUri, code);
    const refreshToken = issued.body.refresh_token;
    expect(typeof refreshToken).toBe('string');

    // The real lookup, with the connection frozen from the moment it starts: a real ioredis timeout.
    const findById = auth.users.findById.bind(auth.users);
    const lookup = vi.spyOn(auth.users, 'findById').mockImplementationOnce(async (id) => {
      proxy.set('freeze');
      try {
        return await findById(id);
      } finally {
        proxy.set('pass');
      }
    });
    const refused = await token(issuer, { grant_type: 'refresh_token', refresh_token: String(refreshToken), client_id: clientId });
    expect(lookup).toHaveBeenCalled();
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('temporarily_unavailable');
    expect(refused.headers.get('retry-after')).toBeTruthy();

    // Nothing was rotated: the client's retry with the same token gets new tokens.
    const retried = await token(issuer, { grant_type: 'refresh_token', refresh_token: String(refreshToken), client_id: clientId });
    expect(retried.status).toBe(200);
    expect(typeof retried.body.access_token).toBe('string');
  });
});
