// Test support: an auth service on a random loopback port whose issuer is its own URL.
import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { createLogger } from '@fragrance/http';
import { close, listen } from '@fragrance/testkit';
import { buildApp, type AuthDeps, type AuthService } from '../app.ts';

/** Cheap scrypt for tests only (production uses DEFAULT_SCRYPT). */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

export interface Harness extends AuthService {
  issuer: string;
  /** Where this instance listens (equals issuer unless the test set another issuer). */
  url: string;
  resource: string;
  server: Server;
  close: () => Promise<void>;
}

export async function startAuth(redis: Redis, prefix: string, overrides: Partial<AuthDeps> = {}): Promise<Harness> {
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
  return {
    ...service,
    url,
    issuer,
    resource,
    server,
    close: () => close(server),
  };
}
