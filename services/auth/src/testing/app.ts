// The auth service's HTTP app in process for its tests (buildApp on a free loopback port, the
// issuer its own URL), and the vitest fixtures that hand a test its Redis, its app and a user.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { test } from 'vitest';
import { createLogger } from '@fragrance/http';
import { close, listen, testRedis } from '@fragrance/testkit';
import { buildApp, type AuthDeps, type AuthService } from '../app.ts';

/** Cheap scrypt for tests only (production uses DEFAULT_SCRYPT). */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

export interface AuthApp extends AuthService {
  issuer: string;
  /** Where this instance listens (equals issuer unless the test set another issuer). */
  url: string;
  resource: string;
  server: Server;
  close: () => Promise<void>;
}

/** What a test may change of buildApp's dependencies (Redis and prefix included). */
export type AuthOptions = Partial<AuthDeps>;

export interface Credentials {
  email: string;
  password: string;
}

/**
 * Starts the auth app (buildApp) on a free loopback port with test settings (cheap scrypt,
 * generous limits, trust in a loopback proxy); `overrides` replaces any of them.
 */
export async function startAuthApp(redis: Redis, prefix: string, overrides: AuthOptions = {}): Promise<AuthApp> {
  const server = createServer();
  const url = await listen(server);
  const issuer = overrides.issuer ?? url;
  const resource = overrides.resource ?? `${issuer}/mcp`;
  const service = await buildApp({
    issuer,
    resource,
    redis,
    prefix,
    logger: createLogger('auth-test', 'silent'),
    ttl: { accessToken: 86_400, authorizationCode: 60, session: 86_400, refreshTokenIdle: 30 * 86_400, refreshTokenMax: 365 * 86_400 },
    registrationLimitPerHour: 1_000,
    login: { perAccount: 5, perAddress: 50, windowSeconds: 900 },
    trustProxy: 'loopback',
    scrypt: TEST_SCRYPT,
    ...overrides,
  });
  server.on('request', service.app);
  return { ...service, url, issuer, resource, server, close: () => close(server) };
}

/**
 * Vitest fixtures (`authTest(name, async ({ auth, person }) => …)`), one set per test file:
 * - `redis`: the file's own prefix on the test Redis, its keys removed after the file;
 * - `authOptions`: what the file's `auth` is started with (`authTest.override('authOptions', …)`
 *   at the top of a file changes it);
 * - `auth`: the app on that Redis and prefix, closed after the file;
 * - `person`: a user of `auth` (created once per file) whose credentials the test signs in with;
 * - `startAuth`: starts a further app (a fresh prefix under the file's unless given), closed
 *   after the test.
 */
export const authTest = test
  .extend('authOptions', { scope: 'file' }, {} as AuthOptions)
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const redis = await testRedis('auth');
    onCleanup(() => redis.cleanup());
    return redis;
  })
  .extend('auth', { scope: 'file' }, async ({ redis, authOptions }, { onCleanup }) => {
    const auth = await startAuthApp(redis.redis, redis.prefix, authOptions);
    onCleanup(() => auth.close());
    return auth;
  })
  .extend('person', { scope: 'file' }, async ({ auth }): Promise<Credentials> => {
    const person = { email: 'person@example.com', password: 'the person has a long password' };
    await auth.users.create(person.email, person.password);
    return person;
  })
  .extend('startAuth', async ({ redis }, { onCleanup }) => {
    const apps: AuthApp[] = [];
    onCleanup(async () => {
      await Promise.all(apps.map((app) => app.close()));
    });
    return async (overrides: AuthOptions = {}): Promise<AuthApp> => {
      const app = await startAuthApp(
        overrides.redis ?? redis.redis,
        overrides.prefix ?? `${redis.prefix}${randomBytes(4).toString('hex')}:`,
        overrides,
      );
      apps.push(app);
      return app;
    };
  });
