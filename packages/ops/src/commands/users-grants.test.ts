import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrantStore, RevocationStore, UserStore } from '@fragrance/identity';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { UsageError, type CommandContext } from '../command.ts';
import { usersGroup } from './users.ts';

// `ops users grants` and `ops users revoke-grants` over grants stored the way the auth service
// stores them (its adapter writes the grant, the index entry and the token list).
describe('ops users grants / revoke-grants (real Redis)', () => {
  let redis: TestRedis;
  let store: GrantStore;
  let revocations: RevocationStore;
  let userId: string;

  beforeAll(async () => {
    redis = await testRedis('ops-grants');
    revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
    store = new GrantStore(redis.redis, { prefix: redis.prefix, revocations });
    const users = new UserStore(redis.redis, { prefix: redis.prefix, scrypt: { N: 1024, r: 8, p: 1 } });
    userId = (await users.create('grants.owner@example.com', 'a long enough password')).id;
    await redis.redis.set(store.modelKey('Client', 'client-a'), JSON.stringify({ client_name: 'Assistant A' }));
    for (const [grantId, clientId] of [
      ['grant-a', 'client-a'],
      ['grant-b', 'client-b'],
      ['grant-c', 'client-c'],
    ] as const) {
      const multi = redis.redis.multi();
      multi.set(
        store.modelKey('Grant', grantId),
        JSON.stringify({ accountId: userId, clientId, iat: 1_700_000_000, resources: { r: 'catalogue:read' } }),
      );
      store.indexGrant(multi, grantId, userId, 3_600);
      await multi.exec();
    }
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
    await usersGroup.commands[command]!.run(ctx);
    return Buffer.concat(chunks).toString();
  }

  it('lists the connected apps of a user, as text and JSON', async () => {
    const text = await run('grants', ['Grants.Owner@example.com']);
    expect(text).toContain('client-a  "Assistant A"  scopes=catalogue:read');
    expect(text).toContain('last_used=never');
    const rows = JSON.parse(await run('grants', ['grants.owner@example.com', '--json'])) as {
      client_id: string;
      client_name: string | null;
    }[];
    expect(rows.map((r) => r.client_id).sort()).toEqual(['client-a', 'client-b', 'client-c']);
    expect(rows.find((r) => r.client_id === 'client-b')?.client_name).toBeNull();
  });

  it('revokes one client with --client, then every other app', async () => {
    expect(await run('revoke-grants', ['grants.owner@example.com', '--client', 'client-a'])).toBe(
      'revoked 1 grant(s) of client client-a\n',
    );
    expect(await revocations.isRevoked({ gid: 'grant-a' })).toBe(true);
    expect(await revocations.isRevoked({ gid: 'grant-b' })).toBe(false);
    expect(await run('revoke-grants', ['grants.owner@example.com', '--client', 'client-a'])).toBe('nothing to revoke of client client-a\n');
    expect(JSON.parse(await run('revoke-grants', ['grants.owner@example.com', '--json']))).toEqual({ revoked: 2 });
    expect(await revocations.isRevoked({ gid: 'grant-c' })).toBe(true);
    expect(await run('grants', ['grants.owner@example.com'])).toBe('grants.owner@example.com has no connected apps\n');
  });

  it('refuses an unknown user, a missing email and an empty --client as usage errors', async () => {
    await expect(run('grants', ['ghost@example.com'])).rejects.toThrow(/no user with email ghost@example.com/);
    await expect(run('revoke-grants', [])).rejects.toBeInstanceOf(UsageError);
    await expect(run('revoke-grants', ['grants.owner@example.com', '--client', ' '])).rejects.toBeInstanceOf(UsageError);
    await expect(run('revoke-grants', ['grants.owner@example.com', '--bogus'])).rejects.toBeInstanceOf(UsageError);
  });
});
