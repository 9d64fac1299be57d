import { describe, expect } from 'vitest';
import { disableUser, MachineClientStore, RevocationStore, UserStore } from '@fragrance/identity';
import { mcpTest, type WiredMcpApp } from './testing/app.ts';

// The app exactly as main.ts wires it from its environment (createDeps), with a REDIS_PREFIX other
// than the default (the test file's own): revocation records written under that prefix by the auth
// service or the ops CLI must bite.
const it = mcpTest.extend('app', { scope: 'file' }, ({ startWiredApp }) => startWiredApp());

const initialize = (app: WiredMcpApp, token: string) => app.post({ authorization: `Bearer ${token}` });
const tokenFor = (app: WiredMcpApp, sub: string, gid: string) => app.token({ sub, gid });

describe('MCP server wired from config (createDeps) under a non-default REDIS_PREFIX', () => {
  it('refuses the tokens of a user disabled the way `ops users disable` does it (same prefix)', async ({ app, redis }) => {
    const prefix = redis.prefix;
    const users = new UserStore(redis.redis, { prefix, scrypt: { N: 1024, r: 8, p: 1 } });
    const user = await users.create('leaver@example.test', 'correct horse battery staple');
    const token = await tokenFor(app, user.id, `grant-${user.id}`);
    expect((await initialize(app, token)).status).toBe(200);

    await disableUser(users, new RevocationStore(redis.redis, { prefix }), user.email);

    const refused = await initialize(app, token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses the tokens of a grant revoked by the auth service (same prefix), and only those', async ({ app, redis }) => {
    const revoked = await tokenFor(app, 'user-grant', 'grant-revoked');
    const kept = await tokenFor(app, 'user-grant', 'grant-kept');
    expect((await initialize(app, revoked)).status).toBe(200);

    await new RevocationStore(redis.redis, { prefix: redis.prefix }).revokeGrant('grant-revoked', 60);

    expect((await initialize(app, revoked)).status).toBe(401);
    expect((await initialize(app, kept)).status).toBe(200);
  });

  it('keeps its per-user rate-limit bucket and usage counts under REDIS_PREFIX', async ({ app, redis }) => {
    const sub = `rate-${crypto.randomUUID()}`;
    expect((await initialize(app, await tokenFor(app, sub, 'grant-rate'))).status).toBe(200);
    expect(await redis.redis.exists(`${redis.prefix}mcp:bucket:${sub}`)).toBe(1);
    expect(await redis.redis.exists(`fcs:mcp:bucket:${sub}`)).toBe(0);
    const usage = await app.deps.rateLimiter.usage(new Date().toISOString().slice(0, 10));
    expect(usage[`${sub} client-1`]).toBe(1);
    const day = new Date().toISOString().slice(0, 10);
    expect(await redis.redis.hget(`${redis.prefix}mcp:usage:${day}`, `${sub} client-1`)).toBe('1');
  });

  it("counts a machine client's calls against its own daily quota (registered as `ops clients create --machine` does)", async ({
    app,
    redis,
  }) => {
    const revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
    const machines = new MachineClientStore(redis.redis, { prefix: redis.prefix, revocations });
    const { client } = await machines.create({ name: 'Back office', quotaPerDay: 1 });
    const token = await app.token({ sub: client.id, clientId: client.id, gid: '' });
    expect((await initialize(app, token)).status).toBe(200);
    const over = await initialize(app, token);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { code?: string }).code).toBe('daily_quota_exceeded');
    expect((await machines.usage(client.id, 1))[0]!.requests).toBe(1);
  });
});
