import { z } from 'zod';
import { parseConfig, redisConnectionFields, redisPrefix, timeZone } from '@fragrance/config';
import { Burst, createKeyStore, MAX_QUOTA, Refill, USAGE_RETENTION_DAYS, type ApiKeyRecord, type KeyStore } from '@fragrance/api-keys';
import { parseOptions, UsageError, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { withRedis } from '../redis.ts';

/** What `keys` commands read from the environment (the same names the gateway uses). */
export const KeysConfig = z.object({
  ...redisConnectionFields(),
  REDIS_PREFIX: redisPrefix(),
  QUOTA_TIMEZONE: timeZone('UTC'),
});
export type KeysConfig = z.infer<typeof KeysConfig>;

/** Opens Redis for one command (failing fast when it is down) and always closes it. */
async function withStore<T>(ctx: CommandContext, use: (store: KeyStore, config: KeysConfig) => Promise<T>): Promise<T> {
  const config = parseConfig(KeysConfig, ctx.env);
  return withRedis(config, (redis) => use(createKeyStore({ redis, prefix: config.REDIS_PREFIX }), config));
}

function wholeNumber(name: string, raw: string | undefined, min: number, max: number): number {
  if (raw === undefined) throw new UsageError(`${name} is required`);
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new UsageError(`${name} must be from ${min} to ${max}, got ${raw}`);
  return value;
}

function schemaOption<T>(name: string, raw: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (raw === undefined) return undefined;
  const result = schema.safeParse(raw);
  if (!result.success) throw new UsageError(`${name} ${result.error.issues[0]?.message ?? 'is invalid'}, got "${raw}"`);
  return result.data;
}

/** The one positional argument of commands that name a key. */
function keyIdArgument(positionals: string[]): string {
  const [id] = positionals;
  if (!id || positionals.length !== 1) throw new UsageError('expected a key id such as key_3f9a1c2b4d5e6f70');
  return id;
}

/** The snake_case shape of a key in --json output (never the plaintext, except at creation). */
function toJson(record: ApiKeyRecord) {
  return {
    id: record.id,
    owner: record.owner,
    rate_limit_per_day: record.quota,
    burst_capacity: record.burst ?? null,
    burst_refill_per_second: record.refillPerSecond ?? null,
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt ?? null,
    revoked_at: record.revokedAt ?? null,
  };
}

function describe(record: ApiKeyRecord): string {
  const burst =
    record.burst || record.refillPerSecond ? `  burst ${record.burst ?? 'default'}/${record.refillPerSecond ?? 'default'} per s` : '';
  return [
    `${record.id}  ${record.owner}  quota ${record.quota}/day${burst}`,
    `  created ${record.createdAt}  last used ${record.lastUsedAt ?? 'never'}${record.revokedAt ? `  REVOKED ${record.revokedAt}` : ''}`,
  ].join('\n');
}

const print = (ctx: CommandContext, text: string) => void ctx.stdout.write(`${text}\n`);

const create: Command = {
  summary: 'Create a key and print it once (only its SHA-256 is stored)',
  usage: 'keys create --owner <name> --quota <n> [--burst <n>] [--refill <per s>] [--replace] [--json]',
  async run(ctx) {
    const { values } = parseOptions(ctx.argv, {
      owner: { type: 'string' },
      quota: { type: 'string' },
      burst: { type: 'string' },
      refill: { type: 'string' },
      replace: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    if (values.owner === undefined || values.owner.trim() === '') throw new UsageError('--owner is required');
    const quota = wholeNumber('--quota', values.quota, 0, MAX_QUOTA);
    const burst = schemaOption('--burst', values.burst, Burst);
    const refillPerSecond = schemaOption('--refill', values.refill, Refill);
    await withStore(ctx, async (store) => {
      // --replace: the owner's other live keys stop working as this one starts (e.g. the demo key).
      const replaced = values.replace ? (await store.list()).filter((k) => k.owner === values.owner!.trim() && !k.revokedAt) : [];
      const { apiKey, record } = await store.create({
        owner: values.owner!,
        quota,
        ...(burst !== undefined ? { burst } : {}),
        ...(refillPerSecond !== undefined ? { refillPerSecond } : {}),
      });
      for (const old of replaced) await store.revoke(old.id);
      if (values.json) {
        print(ctx, JSON.stringify({ ...toJson(record), api_key: apiKey, revoked: replaced.map((k) => k.id) }));
        return;
      }
      print(ctx, describe(record));
      for (const old of replaced) print(ctx, `revoked ${old.id}`);
      print(ctx, `\napi key (shown once, not recoverable; store it now):\n${apiKey}`);
    });
  },
};

const list: Command = {
  summary: 'List keys (never their plaintext), newest first',
  usage: 'keys list [--owner <name>] [--active] [--json]',
  async run(ctx) {
    const { values } = parseOptions(ctx.argv, {
      owner: { type: 'string' },
      active: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    await withStore(ctx, async (store) => {
      const keys = (await store.list()).filter(
        (k) => (values.owner === undefined || k.owner === values.owner) && (!values.active || !k.revokedAt),
      );
      if (values.json) return void print(ctx, JSON.stringify(keys.map(toJson)));
      print(ctx, keys.length === 0 ? 'no keys' : keys.map(describe).join('\n'));
    });
  },
};

const revoke: Command = {
  summary: 'Revoke a key; the gateway refuses it from the next request on',
  usage: 'keys revoke <id> [--json]',
  async run(ctx) {
    const { values, positionals } = parseOptions(ctx.argv, { json: { type: 'boolean', default: false } }, true);
    const id = keyIdArgument(positionals);
    await withStore(ctx, async (store) => {
      const record = await store.revoke(id);
      print(ctx, values.json ? JSON.stringify(toJson(record)) : `revoked\n${describe(record)}`);
    });
  },
};

const setQuota: Command = {
  summary: "Change a key's daily quota (effective on the next request)",
  usage: 'keys set-quota <id> <n> [--json]',
  async run(ctx) {
    const { values, positionals } = parseOptions(ctx.argv, { json: { type: 'boolean', default: false } }, true);
    const id = keyIdArgument(positionals.slice(0, 1));
    if (positionals.length !== 2) throw new UsageError('expected a key id and a quota');
    const quota = wholeNumber('quota', positionals[1], 0, MAX_QUOTA);
    await withStore(ctx, async (store) => {
      const record = await store.setQuota(id, quota);
      print(ctx, values.json ? JSON.stringify(toJson(record)) : describe(record));
    });
  },
};

const setBurst: Command = {
  summary: "Change a key's token bucket (most requests at once, refill per second)",
  usage: 'keys set-burst <id> --burst <n> --refill <per s> [--json]',
  async run(ctx) {
    const { values, positionals } = parseOptions(
      ctx.argv,
      { burst: { type: 'string' }, refill: { type: 'string' }, json: { type: 'boolean', default: false } },
      true,
    );
    const id = keyIdArgument(positionals);
    const burst = schemaOption('--burst', values.burst, Burst);
    const refill = schemaOption('--refill', values.refill, Refill);
    if (burst === undefined || refill === undefined) throw new UsageError('--burst and --refill are required');
    await withStore(ctx, async (store) => {
      const record = await store.setBurst(id, burst, refill);
      print(ctx, values.json ? JSON.stringify(toJson(record)) : describe(record));
    });
  },
};

const usage: Command = {
  summary: 'Requests admitted per day (billing), oldest first, ending today',
  usage: `keys usage <id> [--days 30] [--json]   (kept ${USAGE_RETENTION_DAYS} days)`,
  async run(ctx) {
    const { values, positionals } = parseOptions(ctx.argv, { days: { type: 'string' }, json: { type: 'boolean', default: false } }, true);
    const id = keyIdArgument(positionals);
    const days = values.days === undefined ? 30 : wholeNumber('--days', values.days, 1, USAGE_RETENTION_DAYS);
    await withStore(ctx, async (store, config) => {
      const record = await store.get(id);
      const rows = await store.usage(id, days, config.QUOTA_TIMEZONE);
      const total = rows.reduce((sum, row) => sum + row.requests, 0);
      if (values.json) {
        print(ctx, JSON.stringify({ id, owner: record.owner, time_zone: config.QUOTA_TIMEZONE, total, days: rows }));
        return;
      }
      print(ctx, `${id}  ${record.owner}  (days in ${config.QUOTA_TIMEZONE})`);
      for (const row of rows) print(ctx, `${row.day}  ${String(row.requests).padStart(10)}`);
      print(ctx, `total       ${String(total).padStart(10)}`);
    });
  },
};

/** `keys` commands: the only way API keys are created (there is no HTTP endpoint for it). */
export const keysGroup: CommandGroup = {
  summary: 'API keys: create, list, revoke, set quota or burst, usage',
  commands: { create, list, revoke, 'set-quota': setQuota, 'set-burst': setBurst, usage },
};
