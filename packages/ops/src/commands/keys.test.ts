import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmitter, isWellFormedApiKey } from '@fragrance/api-keys';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { UsageError, type CommandContext } from '../command.ts';
import { keysGroup } from './keys.ts';

describe('ops keys (real Redis)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis('ops-keys');
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
    const spec = keysGroup.commands[command];
    if (!spec) throw new Error(`no command ${command}`);
    await spec.run(ctx);
    return Buffer.concat(chunks).toString();
  }
  const json = async <T>(command: string, argv: string[]) => JSON.parse(await run(command, [...argv, '--json'])) as T;

  it('creates a key, prints it once, and never lists it again', async () => {
    const text = await run('create', ['--owner', 'Acme', '--quota', '1000']);
    const apiKey = text.trim().split('\n').at(-1)!;
    expect(isWellFormedApiKey(apiKey)).toBe(true);
    expect(text).toMatch(/shown once/);
    const listed = await run('list', []);
    expect(listed).toContain('Acme');
    expect(listed).not.toContain(apiKey.slice(4));
    expect(JSON.stringify(await json('list', []))).not.toContain(apiKey.slice(4));
  });

  it('revokes, re-quotas and reports usage', async () => {
    const created = await json<{ id: string; api_key: string; rate_limit_per_day: number }>('create', [
      '--owner',
      'Beta',
      '--quota',
      '5',
      '--burst',
      '10',
      '--refill',
      '2',
    ]);
    expect(created).toMatchObject({ rate_limit_per_day: 5 });
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 60, refillPerSecond: 20 },
    });
    for (let i = 0; i < 3; i += 1) expect((await admit(created.api_key, 'admit')).outcome).toBe('admitted');

    const usage = await json<{ total: number; days: { day: string; requests: number }[] }>('usage', [created.id, '--days', '7']);
    expect(usage.days).toHaveLength(7);
    expect(usage.total).toBe(3);
    expect(usage.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), requests: 3 });
    expect(await run('usage', [created.id])).toMatch(/total\s+3/);

    expect(await json('set-quota', [created.id, '2'])).toMatchObject({ rate_limit_per_day: 2 });
    expect((await admit(created.api_key, 'admit')).outcome).toBe('daily_quota_exceeded');
    expect(await json('set-burst', [created.id, '--burst', '3', '--refill', '0.5'])).toMatchObject({
      burst_capacity: 3,
      burst_refill_per_second: 0.5,
    });

    const revoked = await json<{ revoked_at: string | null }>('revoke', [created.id]);
    expect(revoked.revoked_at).not.toBeNull();
    expect(await admit(created.api_key, 'peek')).toEqual({ outcome: 'invalid_key', reason: 'revoked' });
    expect(await json('list', ['--owner', 'Beta', '--active'])).toEqual([]);
  });

  it('--replace revokes the owner’s other live keys', async () => {
    const first = await json<{ id: string }>('create', ['--owner', 'demo', '--quota', '10']);
    const second = await json<{ id: string; revoked: string[] }>('create', ['--owner', 'demo', '--quota', '10', '--replace']);
    expect(second.revoked).toEqual([first.id]);
    const live = await json<{ id: string }[]>('list', ['--owner', 'demo', '--active']);
    expect(live.map((k) => k.id)).toEqual([second.id]);
  });

  it('creates publishable keys restricted to origins, and --replace keeps the other kind', async () => {
    const secret = await json<{ id: string }>('create', ['--owner', 'shop', '--quota', '10']);
    const created = await json<{ id: string; kind: string; hint: string; api_key: string; origins: string[]; scopes: string[] }>('create', [
      '--publishable',
      '--owner',
      'shop',
      '--quota',
      '100',
      '--origin',
      'https://Shop.example:443',
      '--origin',
      'https://*.shop.example',
      '--replace',
    ]);
    expect(created).toMatchObject({
      kind: 'publishable',
      origins: ['https://shop.example', 'https://*.shop.example'],
      scopes: ['search'],
    });
    expect(created.api_key).toMatch(/^fcs_pk_[0-9A-Za-z]{43}$/);
    expect(created.api_key.startsWith(created.hint.replace('…', ''))).toBe(true);
    const live = await json<{ id: string }[]>('list', ['--owner', 'shop', '--active']);
    expect(live.map((k) => k.id).sort()).toEqual([secret.id, created.id].sort());
    const text = await run('create', ['--publishable', '--owner', 'shop2', '--quota', '1', '--origin', 'http://127.0.0.1:8090']);
    expect(text).toMatch(/publishable key \(not a secret/);
    expect(text.trim().split('\n').at(-1)).toMatch(/^fcs_pk_/);
  });

  it('creates secret keys with scopes and an expiry, rolls them, and lists the last use with its address', async () => {
    const created = await json<{ id: string; api_key: string; scopes: string[]; expires_at: string }>('create', [
      '--owner',
      'Gamma',
      '--quota',
      '50',
      '--scope',
      'search,usage',
      '--expires',
      '2099-01-31',
    ]);
    expect(created.scopes).toEqual(['search', 'usage']);
    expect(created.expires_at).toBe('2099-02-01T00:00:00.000Z');
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 60, refillPerSecond: 20 },
    });
    expect((await admit(created.api_key, 'admit', 1, undefined, { clientAddress: '203.0.113.9' })).outcome).toBe('admitted');
    expect(await run('list', ['--owner', 'Gamma'])).toMatch(/last used \S+ from 203\.0\.113\.9/);

    const rolled = await json<{ id: string; api_key: string; scopes: string[]; expires_at: string; replaces: { retires_at: string } }>(
      'roll',
      [created.id, '--grace', '1h'],
    );
    expect(rolled.scopes).toEqual(['search', 'usage']);
    expect(rolled.expires_at).toBe('2099-02-01T00:00:00.000Z');
    expect(Date.parse(rolled.replaces.retires_at) - Date.now()).toBeGreaterThan(3_500_000);
    expect((await admit(created.api_key, 'peek')).outcome).toBe('authenticated');
    expect((await admit(rolled.api_key, 'peek')).outcome).toBe('authenticated');
    expect(await run('list', ['--owner', 'Gamma'])).toMatch(new RegExp(`ROLLED to ${rolled.id}`));
    await run('roll', [rolled.id, '--grace', '0']);
    expect(await admit(rolled.api_key, 'peek')).toMatchObject({ outcome: 'key_rolled' });
  });

  it('turns bad usage into usage errors and unknown ids into errors', async () => {
    await expect(run('create', ['--quota', '10'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('create', ['--owner', 'x', '--quota', '-1'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('create', ['--owner', 'x', '--quota', '1e3'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('create', ['--owner', 'x', '--quota', '10', '--burst', '0'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('create', ['--owner', 'x', '--quota', '10', '--nope'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('set-quota', ['key_0000000000000000'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('usage', ['key_0000000000000000', '--days', '0'])).rejects.toBeInstanceOf(UsageError);
    await expect(run('revoke', ['key_0000000000000000'])).rejects.toMatchObject({ code: 'unknown_key' });
    for (const argv of [
      ['--publishable', '--owner', 'x', '--quota', '1'], // no origin
      ['--owner', 'x', '--quota', '1', '--origin', 'https://shop.example'], // origin on a secret key
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'https://shop.example/path'],
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'ftp://shop.example'],
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'https://*.example'],
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'https://a.*.example.com'],
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'https://shop.example', '--scope', 'search'],
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'https://shop.example', '--burst', '5'],
      ['--publishable', '--owner', 'x', '--quota', '1', '--origin', 'https://shop.example', '--max-limit', '101'],
      ['--owner', 'x', '--quota', '1', '--scope', 'admin'],
      ['--owner', 'x', '--quota', '1', '--max-limit', '10'],
      ['--owner', 'x', '--quota', '1', '--expires', '2020-01-01'],
      ['--owner', 'x', '--quota', '1', '--expires', '2027-02-30'],
      ['--owner', 'x', '--quota', '1', '--expires', 'tomorrow'],
    ]) {
      await expect(run('create', argv), argv.join(' ')).rejects.toBeInstanceOf(UsageError);
    }
    const { id } = await json<{ id: string }>('create', ['--owner', 'y', '--quota', '1']);
    for (const grace of ['7', '-1d', '91d', '1w']) await expect(run('roll', [id, '--grace', grace])).rejects.toBeInstanceOf(UsageError);
    await run('revoke', [id]);
    await expect(run('roll', [id])).rejects.toBeInstanceOf(UsageError);
  });
});
