import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RevocationStore } from '@fragrance/identity';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { UsageError, type CommandContext } from '../command.ts';
import { clientsGroup } from './clients.ts';

// `ops clients` against real Redis: what it stores is what the auth service's token endpoint
// loads (services/auth/src/machine-clients.test.ts) and what the MCP server counts.
describe('ops clients (real Redis)', () => {
  let redis: TestRedis;

  beforeAll(async () => {
    redis = await testRedis('ops-clients');
  });
  afterAll(() => redis.cleanup());

  async function run(command: string, argv: string[]): Promise<string> {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ctx: CommandContext = {
      argv,
      env: { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix },
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    };
    await clientsGroup.commands[command]!.run(ctx);
    return Buffer.concat(chunks).toString('utf8');
  }

  it('creates a secret client (secret shown once, stored hashed), lists it, revokes it at once', async () => {
    const created = JSON.parse(await run('create', ['--machine', '--name', 'Back office', '--quota', '500', '--json'])) as Record<
      string,
      unknown
    >;
    expect(created).toMatchObject({
      name: 'Back office',
      token_endpoint_auth_method: 'client_secret_basic',
      quota_per_day: 500,
      revoked_at: null,
    });
    const id = created.client_id as string;
    expect(id).toMatch(/^mc_/);
    expect(created.client_secret).toBeTypeOf('string');
    const stored = (await redis.redis.get(`${redis.prefix}oidc:Client:${id}`))!;
    expect(stored).not.toContain(created.client_secret as string);
    expect(JSON.parse(stored)).toMatchObject({ grant_types: ['client_credentials'], fcs_machine: true, scope: 'catalogue:read' });

    expect(await run('list', [])).toContain(`${id}  "Back office"  client_secret_basic  quota=500  active`);
    // A token issued before the revocation (the clock read then: a second may pass before the check).
    const issuedAt = Math.floor(Date.now() / 1000);
    expect(await run('revoke', [id])).toContain(`revoked ${id}`);
    expect(await redis.redis.exists(`${redis.prefix}oidc:Client:${id}`)).toBe(0);
    const revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
    expect(await revocations.isRevoked({ sub: id, iat: issuedAt })).toBe(true);
    expect(await run('list', [])).toMatch(/revoked \d{4}-/);
  });

  it('creates a private_key_jwt client from a public key set; refuses private keys and bad input', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ops-clients-'));
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicFile = join(dir, 'public.json');
    await writeFile(publicFile, JSON.stringify({ keys: [{ ...pair.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256' }] }));
    const created = JSON.parse(await run('create', ['--machine', '--name', 'Keyed', '--jwks', publicFile, '--json'])) as Record<
      string,
      unknown
    >;
    expect(created).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', quota_per_day: null });
    expect(created.client_secret).toBeUndefined();

    const privateFile = join(dir, 'private.json');
    await writeFile(privateFile, JSON.stringify({ keys: [pair.privateKey.export({ format: 'jwk' })] }));
    await expect(run('create', ['--machine', '--name', 'Leaky', '--jwks', privateFile])).rejects.toThrow(/public keys only/);
    await expect(run('create', ['--name', 'No flag'])).rejects.toThrow(UsageError);
    await expect(run('create', ['--machine', '--name', 'Zero', '--quota', '0'])).rejects.toThrow(/--quota/);
    await expect(run('revoke', ['mc_nobody'])).rejects.toThrow(/no machine client/);
  });

  it('usage: requests per UTC day as the MCP server counted them', async () => {
    const created = JSON.parse(await run('create', ['--machine', '--name', 'Counted', '--quota', '2', '--json'])) as Record<
      string,
      unknown
    >;
    const id = created.client_id as string;
    await redis.redis.set(`${redis.prefix}machine-client:usage:${id}:${new Date().toISOString().slice(0, 10)}`, '2');
    const report = JSON.parse(await run('usage', [id, '--days', '2', '--json'])) as { usage: { day: string; requests: number }[] };
    expect(report.usage).toHaveLength(2);
    expect(report.usage[0]).toEqual({ day: new Date().toISOString().slice(0, 10), requests: 2 });
    expect(await run('usage', [id, '--days', '1'])).toContain(' 2 / 2');
  });
});
