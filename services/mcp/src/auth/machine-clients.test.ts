import { createServer } from 'node:http';
import express from 'express';
import { createLocalJWKSet } from 'jose';
import { describe, expect } from 'vitest';
import { problemHandler } from '@fragrance/http';
import { MachineClientStore, RevocationStore } from '@fragrance/identity';
import { close, listen } from '@fragrance/testkit';
import { mcpTest } from '../testing/app.ts';
import { mintToken, signingKey, type SigningKey } from '../testing/tokens.ts';
import { requireBearer } from './bearer.ts';
import { createTokenVerifier, QuotaExceededError, RevokedTokenError, type TokenVerifier } from './verify-token.ts';

// Client-credentials tokens of machine clients (`sub` = the client, no grant): each request is
// counted against the client's daily quota in Redis, and a revoked client is refused at once.
// Clients are registered as `ops clients create --machine` does (MachineClientStore).
const ISSUER = 'http://issuer.test';
const AUDIENCE = 'http://mcp.test/mcp';

/** A verifier of tokens of `key` counting machine clients on the test file's Redis. */
const it = mcpTest.extend('machine', { scope: 'file' }, async ({ redis }) => {
  const key = await signingKey('k1');
  const revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
  const machines = new MachineClientStore(redis.redis, { prefix: redis.prefix, revocations });
  const verify: TokenVerifier = createTokenVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithm: 'RS256',
    requiredScope: 'catalogue:read',
    keys: createLocalJWKSet({ keys: [key.publicJwk] }),
    revocations,
    machineClients: machines,
  });
  return { key, machines, verify };
});

/** A token as the auth service issues it to a machine client. */
const machineToken = (key: SigningKey, clientId: string) =>
  mintToken(key, { issuer: ISSUER, audience: AUDIENCE, sub: clientId, clientId, gid: '' });

describe('machine clients at the MCP server', () => {
  it('counts each request against the daily quota; over it, 429 daily_quota_exceeded until midnight UTC, not counted', async ({
    machine,
  }) => {
    const { key, machines, verify } = machine;
    const { client } = await machines.create({ name: 'Quota of two', quotaPerDay: 2 });
    const token = await machineToken(key, client.id);
    const first = await verify(token);
    expect(first.extra.caller).toMatchObject({ sub: client.id, clientId: client.id, machine: true });
    await verify(token);
    await expect(verify(token)).rejects.toBeInstanceOf(QuotaExceededError);
    expect((await machines.usage(client.id, 1))[0]!.requests).toBe(2);

    // Through the bearer middleware: a problem+json 429 with Retry-After.
    const app = express();
    app.use(requireBearer({ verify, resourceMetadataUrl: `${AUDIENCE}/meta`, requiredScope: 'catalogue:read' }), (_req, res) => {
      res.json({ ok: true });
    });
    app.use(problemHandler);
    const server = createServer(app);
    try {
      const url = await listen(server);
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(((await res.json()) as { code: string }).code).toBe('daily_quota_exceeded');
    } finally {
      await close(server);
    }
  });

  it('a client without a quota is counted, never refused for volume', async ({ machine }) => {
    const { key, machines, verify } = machine;
    const { client } = await machines.create({ name: 'Unlimited' });
    const token = await machineToken(key, client.id);
    for (let i = 0; i < 5; i++) await verify(token);
    expect((await machines.usage(client.id, 1))[0]!.requests).toBe(5);
  });

  it('revocation is effective at once: the next request with a token issued before is refused', async ({ machine }) => {
    const { key, machines, verify } = machine;
    const { client } = await machines.create({ name: 'Revoked soon', quotaPerDay: 100 });
    const token = await machineToken(key, client.id);
    await verify(token);
    await machines.revoke(client.id);
    await expect(verify(token)).rejects.toBeInstanceOf(RevokedTokenError);
  });

  it("a person's token is not a machine client's: no quota, no usage", async ({ machine }) => {
    const { key, verify } = machine;
    const info = await verify(await mintToken(key, { issuer: ISSUER, audience: AUDIENCE }));
    expect(info.extra.caller.machine).toBeUndefined();
  });
});
