import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore, RevocationStore, UserStore } from '@fragrance/identity';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { UsageError, type CommandContext, type CommandGroup } from '../command.ts';
import { authGroup, usersGroup } from './users.ts';

describe('ops users / auth (real Redis)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis('ops-users');
  });
  afterAll(() => redis.cleanup());

  async function run(group: CommandGroup, command: string, argv: string[], input = ''): Promise<string> {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const stdin = new PassThrough();
    stdin.end(input);
    const ctx: CommandContext = {
      argv,
      env: { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix },
      stdout,
      stderr: new PassThrough(),
      stdin,
    };
    await group.commands[command]!.run(ctx);
    return Buffer.concat(chunks).toString();
  }

  it('creates a user with the password from stdin, hashed, never printed', async () => {
    const out = await run(usersGroup, 'create', ['--email', 'Ops.User@Example.com'], 'a very long password\n');
    expect(out).toMatch(/created user ops\.user@example\.com/);
    expect(out).not.toContain('a very long password');
    const users = new UserStore(redis.redis, { prefix: redis.prefix });
    expect(await users.authenticate('ops.user@example.com', 'a very long password')).toBeDefined();
  });

  it('refuses short passwords, duplicates and missing emails as usage errors', async () => {
    await expect(run(usersGroup, 'create', ['--email', 'short@example.com'], 'short\n')).rejects.toBeInstanceOf(UsageError);
    await expect(run(usersGroup, 'create', ['--email', 'ops.user@example.com'], 'another long password\n')).rejects.toThrow(
      /already exists/,
    );
    await expect(run(usersGroup, 'create', [], 'a very long password\n')).rejects.toBeInstanceOf(UsageError);
  });

  it('lists users and disables one, writing the revocation record', async () => {
    const listed = JSON.parse(await run(usersGroup, 'list', ['--json'])) as {
      id: string;
      email: string;
      disabled: boolean;
    }[];
    const user = listed.find((u) => u.email === 'ops.user@example.com')!;
    expect(user.disabled).toBe(false);
    const iat = Math.floor(Date.now() / 1000) - 1;
    expect(await run(usersGroup, 'disable', ['ops.user@example.com'])).toContain('revoked');
    const revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
    expect(await revocations.isRevoked({ sub: user.id, iat })).toBe(true);
    expect(await run(usersGroup, 'list', [])).toMatch(/ops\.user@example\.com.*disabled/);
    await expect(run(usersGroup, 'disable', ['ghost@example.com'])).rejects.toThrow(/no user/);
    await run(usersGroup, 'enable', ['ops.user@example.com']);
    expect(await run(usersGroup, 'list', [])).toMatch(/ops\.user@example\.com.*active/);
  });

  it('rotates signing keys', async () => {
    const keys = new KeyStore(redis.redis, { prefix: redis.prefix });
    const [original] = await keys.signingKeys();
    const out = await run(authGroup, 'rotate-keys', ['--keep', '2']);
    const now = await keys.signingKeys();
    expect(now).toHaveLength(2);
    expect(now[1]!.kid).toBe(original!.kid);
    expect(out).toContain(now[0]!.kid);
    expect(out).not.toContain('"d"');
    await expect(run(authGroup, 'rotate-keys', ['--keep', '1'])).rejects.toBeInstanceOf(UsageError);
  });
});
