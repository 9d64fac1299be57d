// Stateless instances, proven: an OAuth flow split across two auth processes on one Redis, the
// way a load balancer spreads it. Interactions, sessions, codes, refresh tokens and signing keys
// all live in Redis, so whichever instance gets the next step can take it.
import { createServer, type Server } from 'node:http';
import { decodeProtectedHeader } from 'jose';
import { describe, expect } from 'vitest';
import { UserStore } from '@fragrance/identity';
import { close, freePort, listen, startService, type RunningService } from '@fragrance/testkit';
import { authTest } from './testing/app.ts';
import { exchange, obtainCode, registerClient, token } from './testing/flow.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'host', 'content-length']);

/**
 * A strict round-robin HTTP proxy: request n goes to instance n % 2, whatever connection it came
 * on, and says which one served it. Stands in for the edge's load balancer in this test only.
 */
function roundRobin(targets: () => string[], served: { path: string; instance: number }[]): Server {
  let turn = 0;
  return createServer((req, res) => {
    const instance = turn++ % 2;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      // As the gateway does: the instance learns the public origin it is reached at.
      Object.assign(headers, { 'x-forwarded-host': req.headers.host ?? '', 'x-forwarded-proto': 'http' });
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      fetch(`${targets()[instance]!}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: headers as Record<string, string>,
        redirect: 'manual',
        ...(body ? { body } : {}),
      }).then(
        async (upstream) => {
          served.push({ path: (req.url ?? '').split('?')[0] ?? '', instance });
          const out: Record<string, string | string[]> = { 'x-served-by': String(instance) };
          upstream.headers.forEach((value, name) => {
            if (!HOP_BY_HOP.has(name) && name !== 'set-cookie' && name !== 'content-encoding') out[name] = value;
          });
          const cookies = upstream.headers.getSetCookie();
          if (cookies.length) out['set-cookie'] = cookies;
          res.writeHead(upstream.status, out);
          res.end(Buffer.from(await upstream.arrayBuffer()));
        },
        (error: unknown) => {
          res.writeHead(502).end(String(error));
        },
      );
    });
  });
}

const credentials = { email: 'split.flow@example.com', password: 'correct horse battery staple' };
const REDIRECT = 'http://127.0.0.1:53682/callback';

/** Two auth processes on the file's Redis behind the round-robin edge (`issuer`), and a user. */
const test = authTest.extend('pair', { scope: 'file' }, async ({ redis }, { onCleanup }) => {
  const instances: RunningService[] = [];
  const served: { path: string; instance: number }[] = [];
  const edge = roundRobin(() => instances.map((i) => i.url), served);
  onCleanup(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await close(edge);
  });
  const issuer = await listen(edge);
  const env = { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, MCP_URL: issuer, REGISTRATION_LIMIT_PER_HOUR: '1000' };
  // One after the other: the first creates the signing keys in Redis, the second must use them.
  instances.push(await startService('auth', await freePort(), env));
  instances.push(await startService('auth', await freePort(), env));
  await new UserStore(redis.redis, { prefix: redis.prefix }).create(credentials.email, credentials.password);
  return { issuer, instances, served };
});

describe('two auth instances on one Redis (real processes)', () => {
  test('an authorization started on one instance completes on the other; refresh rotation, its retry and reuse detection span both', async ({
    pair,
  }) => {
    const { issuer, instances, served } = pair;
    const clientId = await registerClient(issuer, [REDIRECT]);
    const code = await obtainCode(issuer, clientId, REDIRECT, credentials, { resource: `${issuer}/mcp` });
    const granted = await exchange(issuer, clientId, REDIRECT, code);
    expect(granted.status).toBe(200);

    // Every step alternated: both instances served parts of the one flow, the interaction pages included.
    const interactionSteps = served.filter((s) => s.path.startsWith('/oauth/interaction') || s.path.startsWith('/oauth/auth'));
    expect(new Set(interactionSteps.map((s) => s.instance))).toEqual(new Set([0, 1]));

    // One signing key set: both publish the key the token was signed with.
    const { kid } = decodeProtectedHeader(granted.body.access_token as string);
    for (const instance of instances) {
      const jwks = (await (await fetch(`${instance.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
      expect(jwks.keys.map((k) => k.kid)).toContain(kid);
    }

    // Rotation through instance 0; the same token again through instance 1 at once (a client
    // whose answer was lost): answered, its successor still unused.
    const first = granted.body.refresh_token as string;
    const refresh = (instance: number, refreshToken: string) =>
      token(instances[instance]!.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    const rotated = await refresh(0, first);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first);
    const retried = await refresh(1, first);
    expect(retried.status).toBe(200);
    // Its successor used through instance 0, then the old token through instance 1: reuse.
    const next = await refresh(0, retried.body.refresh_token as string);
    expect(next.status).toBe(200);
    const reused = await refresh(1, first);
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Reuse revokes the grant: the newest token is dead on both instances too.
    for (const instance of [0, 1]) {
      expect(await refresh(instance, next.body.refresh_token as string)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
  }, 60_000);

  test('each instance answers /health/live and /health/ready (200: up, Redis reachable, not draining)', async ({ pair }) => {
    for (const instance of pair.instances) {
      for (const path of ['/health/live', '/health/ready']) {
        const res = await fetch(`${instance.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      expect(await (await fetch(`${instance.url}/health/ready`)).json()).toEqual({ status: 'ok', dependencies: { redis: 'up' } });
    }
  });
});
