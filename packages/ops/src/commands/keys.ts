import { z } from 'zod';
import { parseConfig, redisConnectionFields, redisPrefix, timeZone } from '@fragrance/config';
import {
  Burst,
  createKeyStore,
  KEY_SCOPES,
  KeyRequestError,
  KeyScope,
  MAX_GRACE_MS,
  MAX_QUOTA,
  MaxLimit,
  OriginPattern,
  Refill,
  USAGE_RETENTION_DAYS,
  type ApiKeyRecord,
  type KeyStore,
} from '@fragrance/api-keys';
import type { ParseArgsOptionsConfig } from 'node:util';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext, type CommandGroup } from '../command.ts';
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
  return withRedis(config, async (redis) => {
    try {
      return await use(createKeyStore({ redis, prefix: config.REDIS_PREFIX }), config);
    } catch (error) {
      // What the store refuses (restrictions that do not fit the kind, rolling a revoked key) is a usage error.
      if (error instanceof KeyRequestError) throw new UsageError(error.message);
      throw error;
    }
  });
}

/**
 * `--expires`: a date (the key works through that day, UTC, and stops at the next midnight UTC)
 * or an RFC 3339 instant with a zone. Must be in the future.
 */
export function parseExpiry(raw: string | undefined, now = Date.now()): number | undefined {
  if (raw === undefined) return undefined;
  let at: number;
  if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) {
    const start = Date.parse(`${raw}T00:00:00Z`);
    at = Number.isFinite(start) && new Date(start).toISOString().slice(0, 10) === raw ? start + 86_400_000 : Number.NaN;
  } else at = /^\d{4}-\d{2}-\d{2}T.+(Z|[+-]\d{2}:\d{2})$/i.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(at))
    throw new UsageError(`--expires must be a date (2027-01-31) or an instant with a zone (2027-01-31T12:00:00Z), got "${raw}"`);
  if (at <= now) throw new UsageError(`--expires must be in the future, got "${raw}"`);
  return at;
}

/** `--grace`: a duration such as 7d, 12h, 30m, 45s or 0 (the old key stops at once). */
export function parseGrace(raw: string | undefined): number {
  if (raw === undefined) return 7 * 86_400_000;
  const match = /^(\d+)([dhms])?$/.exec(raw);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
  const ms =
    match && (match[2] !== undefined || match[1] === '0') ? Number(match[1]) * unit[(match[2] ?? 's') as keyof typeof unit] : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms > MAX_GRACE_MS)
    throw new UsageError(
      `--grace must be a duration such as 7d, 12h or 30m (0 for none, at most ${MAX_GRACE_MS / 86_400_000}d), got "${raw}"`,
    );
  return ms;
}

/** A quota (requests per day): a usage error naming the option or argument when missing or out of range. */
function quotaOption(name: string, raw: string | undefined): number {
  const quota = wholeNumberOption(name, raw, 0, MAX_QUOTA);
  if (quota === undefined) throw new UsageError(`${name} is required`);
  return quota;
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

/** A command on one key: its id, its own options and --json. */
function oneKeyOptions<T extends ParseArgsOptionsConfig>(argv: string[], options: T) {
  const { values, positionals } = parseOptions(argv, { ...options, json: { type: 'boolean', default: false } } as const, true);
  return { values, id: keyIdArgument(positionals) };
}

/** The snake_case shape of a key in --json output (never the plaintext, except at creation). */
function toJson(record: ApiKeyRecord) {
  return {
    id: record.id,
    kind: record.kind,
    hint: record.hint,
    owner: record.owner,
    rate_limit_per_day: record.quota,
    burst_capacity: record.burst ?? null,
    burst_refill_per_second: record.refillPerSecond ?? null,
    scopes: record.scopes,
    origins: record.origins,
    visitor_burst_capacity: record.visitorBurst ?? null,
    visitor_refill_per_second: record.visitorRefillPerSecond ?? null,
    max_limit: record.maxLimit ?? null,
    created_at: record.createdAt,
    expires_at: record.expiresAt ?? null,
    last_used_at: record.lastUsedAt ?? null,
    last_used_from: record.lastUsedFrom ?? null,
    revoked_at: record.revokedAt ?? null,
    successor: record.successor?.id ?? null,
    retires_at: record.retiresAt ?? null,
    rolled_from: record.rolledFrom ?? null,
  };
}

function describe(record: ApiKeyRecord): string {
  const burst =
    record.burst || record.refillPerSecond ? `  burst ${record.burst ?? 'default'}/${record.refillPerSecond ?? 'default'} per s` : '';
  const restrictions =
    record.kind === 'publishable'
      ? `  origins ${record.origins.join(' ')}  per visitor ${record.visitorBurst ?? 'default'}/${record.visitorRefillPerSecond ?? 'default'} per s  max limit ${record.maxLimit ?? 'default'}`
      : `  scopes ${record.scopes.join(',')}`;
  const lastUse = record.lastUsedAt ? `${record.lastUsedAt} from ${record.lastUsedFrom ?? 'unknown'}` : 'never';
  const state = [
    record.expiresAt ? `expires ${record.expiresAt}` : '',
    record.successor ? `ROLLED to ${record.successor.id} (${record.successor.hint}), works until ${record.retiresAt ?? '?'}` : '',
    record.rolledFrom ? `successor of ${record.rolledFrom}` : '',
    record.revokedAt ? `REVOKED ${record.revokedAt}` : '',
  ].filter(Boolean);
  return [
    `${record.id}  ${record.kind} ${record.hint}  ${record.owner}  quota ${record.quota}/day${burst}`,
    `  ${restrictions.trim()}`,
    `  created ${record.createdAt}  last used ${lastUse}${state.length > 0 ? `  ${state.join('  ')}` : ''}`,
  ].join('\n');
}

const print = (ctx: CommandContext, text: string) => void ctx.stdout.write(`${text}\n`);
/** A key as --json asks, else described, after `heading` when given. */
const printKey = (ctx: CommandContext, record: ApiKeyRecord, json: boolean, heading?: string) =>
  print(ctx, json ? JSON.stringify(toJson(record)) : [heading, describe(record)].filter(Boolean).join('\n'));

/** The restrictions of `keys create`, checked here so a mistake is a usage error naming the option. */
function restrictionOptions(values: {
  publishable?: boolean;
  origin?: string[];
  scope?: string[];
  'visitor-burst'?: string;
  'visitor-refill'?: string;
  'max-limit'?: string;
  expires?: string;
}) {
  const origins = (values.origin ?? []).map((raw) => schemaOption('--origin', raw, OriginPattern)!);
  const scopes = values.scope?.flatMap((raw) => raw.split(',')).map((raw) => schemaOption('--scope', raw.trim(), KeyScope)!);
  if (values.publishable && origins.length === 0)
    throw new UsageError('--publishable needs at least one --origin (the pages it is used on)');
  if (!values.publishable && origins.length > 0) throw new UsageError('--origin is for publishable keys (add --publishable)');
  if (values.publishable && scopes !== undefined)
    throw new UsageError('--scope is for secret keys (a publishable key reaches the read endpoints only)');
  const visitorBurst = schemaOption('--visitor-burst', values['visitor-burst'], Burst);
  const visitorRefillPerSecond = schemaOption('--visitor-refill', values['visitor-refill'], Refill);
  const maxLimit = schemaOption('--max-limit', values['max-limit'], MaxLimit);
  if (!values.publishable && (visitorBurst ?? visitorRefillPerSecond ?? maxLimit) !== undefined)
    throw new UsageError('--visitor-burst, --visitor-refill and --max-limit are for publishable keys');
  const expiresAt = parseExpiry(values.expires);
  return {
    kind: values.publishable ? ('publishable' as const) : ('secret' as const),
    ...(origins.length > 0 ? { origins } : {}),
    ...(scopes !== undefined ? { scopes } : {}),
    ...(visitorBurst !== undefined ? { visitorBurst } : {}),
    ...(visitorRefillPerSecond !== undefined ? { visitorRefillPerSecond } : {}),
    ...(maxLimit !== undefined ? { maxLimit } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

const create: Command = {
  summary: 'Create a key (secret, or --publishable for web pages) and print it once (only its SHA-256 is stored)',
  usage: [
    'keys create --owner <name> --quota <n> [--scope search|export|usage …] [--burst <n>] [--refill <per s>] [--expires <date>] [--replace] [--json]',
    'keys create --publishable --owner <name> --quota <n> --origin <https://shop.example|https://*.shop.example> [--origin …]',
    `        [--visitor-burst <n>] [--visitor-refill <per s>] [--max-limit <n>] [--expires <date>] [--replace] [--json]   (scopes: ${KEY_SCOPES.join(', ')})`,
  ].join('\n'),
  async run(ctx) {
    const { values } = parseOptions(ctx.argv, {
      owner: { type: 'string' },
      quota: { type: 'string' },
      burst: { type: 'string' },
      refill: { type: 'string' },
      publishable: { type: 'boolean', default: false },
      origin: { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      'visitor-burst': { type: 'string' },
      'visitor-refill': { type: 'string' },
      'max-limit': { type: 'string' },
      expires: { type: 'string' },
      replace: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    });
    if (values.owner === undefined || values.owner.trim() === '') throw new UsageError('--owner is required');
    const quota = quotaOption('--quota', values.quota);
    const burst = schemaOption('--burst', values.burst, Burst);
    const refillPerSecond = schemaOption('--refill', values.refill, Refill);
    if (values.publishable && (burst ?? refillPerSecond) !== undefined)
      throw new UsageError('a publishable key is limited per visitor: use --visitor-burst and --visitor-refill');
    const restrictions = restrictionOptions(values);
    await withStore(ctx, async (store) => {
      // --replace: the owner's other live keys of the same kind stop working as this one starts
      // (e.g. the demo keys: a new secret one does not revoke the publishable one).
      const replaced = values.replace
        ? (await store.list()).filter((k) => k.owner === values.owner!.trim() && k.kind === restrictions.kind && !k.revokedAt)
        : [];
      const { apiKey, record } = await store.create({
        owner: values.owner!,
        quota,
        ...(burst !== undefined ? { burst } : {}),
        ...(refillPerSecond !== undefined ? { refillPerSecond } : {}),
        ...restrictions,
      });
      for (const old of replaced) await store.revoke(old.id);
      if (values.json) {
        print(ctx, JSON.stringify({ ...toJson(record), api_key: apiKey, revoked: replaced.map((k) => k.id) }));
        return;
      }
      print(ctx, describe(record));
      for (const old of replaced) print(ctx, `revoked ${old.id}`);
      print(
        ctx,
        record.kind === 'publishable'
          ? `\npublishable key (not a secret: it goes into your pages; shown once, not recoverable):\n${apiKey}`
          : `\napi key (shown once, not recoverable; store it now):\n${apiKey}`,
      );
    });
  },
};

const roll: Command = {
  summary: 'Roll a key: a successor with the same owner, quota and restrictions; the old key works for the grace period',
  usage: 'keys roll <id> [--grace 7d] [--expires <date>] [--json]   (grace: 7d by default, 0 for none)',
  async run(ctx) {
    const { values, id } = oneKeyOptions(ctx.argv, { grace: { type: 'string' }, expires: { type: 'string' } });
    const graceMs = parseGrace(values.grace);
    const expiresAt = parseExpiry(values.expires);
    await withStore(ctx, async (store) => {
      const { apiKey, record, old } = await store.roll(id, { graceMs, ...(expiresAt !== undefined ? { expiresAt } : {}) });
      if (values.json) return void print(ctx, JSON.stringify({ ...toJson(record), api_key: apiKey, replaces: toJson(old) }));
      print(ctx, describe(old));
      print(ctx, describe(record));
      print(ctx, `\n${id} keeps working until ${old.retiresAt ?? 'now'}; then it refuses, naming ${record.hint}.`);
      print(ctx, `new key (shown once, not recoverable; store it now):\n${apiKey}`);
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
    const { values, id } = oneKeyOptions(ctx.argv, {});
    await withStore(ctx, async (store) => printKey(ctx, await store.revoke(id), values.json, 'revoked'));
  },
};

const setQuota: Command = {
  summary: "Change a key's daily quota (effective on the next request)",
  usage: 'keys set-quota <id> <n> [--json]',
  async run(ctx) {
    const { values, positionals } = parseOptions(ctx.argv, { json: { type: 'boolean', default: false } }, true);
    const id = keyIdArgument(positionals.slice(0, 1));
    if (positionals.length !== 2) throw new UsageError('expected a key id and a quota');
    const quota = quotaOption('quota', positionals[1]);
    await withStore(ctx, async (store) => printKey(ctx, await store.setQuota(id, quota), values.json));
  },
};

const setBurst: Command = {
  summary: "Change a key's token bucket (most requests at once, refill per second)",
  usage: 'keys set-burst <id> --burst <n> --refill <per s> [--json]',
  async run(ctx) {
    const { values, id } = oneKeyOptions(ctx.argv, { burst: { type: 'string' }, refill: { type: 'string' } });
    const burst = schemaOption('--burst', values.burst, Burst);
    const refill = schemaOption('--refill', values.refill, Refill);
    if (burst === undefined || refill === undefined) throw new UsageError('--burst and --refill are required');
    await withStore(ctx, async (store) => printKey(ctx, await store.setBurst(id, burst, refill), values.json));
  },
};

const usage: Command = {
  summary: 'Requests admitted per day (billing), oldest first, ending today',
  usage: `keys usage <id> [--days 30] [--json]   (kept ${USAGE_RETENTION_DAYS} days)`,
  async run(ctx) {
    const { values, id } = oneKeyOptions(ctx.argv, { days: { type: 'string' } });
    const days = wholeNumberOption('--days', values.days, 1, USAGE_RETENTION_DAYS) ?? 30;
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
  summary: 'API keys (secret and publishable): create, list, roll, revoke, set quota or burst, usage',
  commands: { create, list, roll, revoke, 'set-quota': setQuota, 'set-burst': setBurst, usage },
};
