import { readFile } from 'node:fs/promises';
import { parseConfig } from '@fragrance/config';
import { MachineClientError, MachineClientStore, RevocationStore, type MachineClient } from '@fragrance/identity';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { withRedis } from '../redis.ts';
import { UsersConfig } from './users.ts';

/** Opens Redis for one command (failing fast when it is down) and always closes it. */
async function withClients<T>(ctx: CommandContext, use: (store: MachineClientStore) => Promise<T>): Promise<T> {
  const config = parseConfig(UsersConfig, ctx.env);
  const prefix = config.REDIS_PREFIX;
  try {
    return await withRedis(config, (redis) =>
      use(new MachineClientStore(redis, { prefix, revocations: new RevocationStore(redis, { prefix }) })),
    );
  } catch (error) {
    if (error instanceof MachineClientError) throw new UsageError(error.message);
    throw error;
  }
}

const asJson = (c: MachineClient) => ({
  client_id: c.id,
  name: c.name,
  token_endpoint_auth_method: c.method,
  quota_per_day: c.quotaPerDay ?? null,
  created_at: c.createdAt,
  revoked_at: c.revokedAt ?? null,
});

async function readJwks(path: string | undefined): Promise<unknown> {
  if (path === undefined) return undefined;
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    throw new UsageError(`--jwks ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const create: Command = {
  summary: 'Register a machine client (client_credentials, no person): private_key_jwt with --jwks, else a secret printed once',
  usage: 'clients create --machine --name <name> [--quota <requests per day>] [--jwks <public JWKS file>] [--json]',
  run: async (ctx) => {
    const { values } = parseOptions(ctx.argv, {
      machine: { type: 'boolean' },
      name: { type: 'string' },
      quota: { type: 'string' },
      jwks: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (!values.machine) throw new UsageError('only machine clients are created here (--machine); people connect apps through sign-in');
    if (!values.name?.trim()) throw new UsageError('--name is required');
    const quotaPerDay = wholeNumberOption('--quota', values.quota, 1);
    const jwks = await readJwks(values.jwks);
    const { client, secret } = await withClients(ctx, (store) =>
      store.create({ name: values.name!, ...(quotaPerDay ? { quotaPerDay } : {}), ...(jwks === undefined ? {} : { jwks }) }),
    );
    if (values.json)
      return void ctx.stdout.write(`${JSON.stringify({ ...asJson(client), ...(secret ? { client_secret: secret } : {}) })}\n`);
    ctx.stdout.write(`created machine client ${client.name} (${client.id}), ${client.method}, quota ${client.quotaPerDay ?? 'none'}\n`);
    if (secret) ctx.stdout.write(`client_secret: ${secret}\n(shown once: only its hash is stored)\n`);
  },
};

const list: Command = {
  summary: 'List machine clients (id, name, method, quota, state)',
  usage: 'clients list [--json]',
  run: async (ctx) => {
    const { values } = parseOptions(ctx.argv, { json: { type: 'boolean' } });
    const clients = await withClients(ctx, (store) => store.list());
    if (values.json) return void ctx.stdout.write(`${JSON.stringify(clients.map(asJson))}\n`);
    if (clients.length === 0) return void ctx.stdout.write('no machine clients\n');
    for (const c of clients) {
      const state = c.revokedAt ? `revoked ${c.revokedAt}` : 'active';
      ctx.stdout.write(`${c.id}  ${JSON.stringify(c.name)}  ${c.method}  quota=${c.quotaPerDay ?? 'none'}  ${state}\n`);
    }
  },
};

function oneId(ctx: CommandContext, options: Parameters<typeof parseOptions>[1]) {
  const parsed = parseOptions(ctx.argv, options, true);
  const id = parsed.positionals[0];
  if (!id || parsed.positionals.length > 1) throw new UsageError('expected one client id');
  return { id, values: parsed.values as Record<string, string | boolean | undefined> };
}

const revoke: Command = {
  summary: 'Revoke a machine client at once: no new token, and the MCP server refuses the ones it holds',
  usage: 'clients revoke <client_id> [--json]',
  run: async (ctx) => {
    const { id, values } = oneId(ctx, { json: { type: 'boolean' } });
    const client = await withClients(ctx, (store) => store.revoke(id));
    ctx.stdout.write(
      values.json ? `${JSON.stringify(asJson(client))}\n` : `revoked ${client.id} (${client.name}); its tokens are refused\n`,
    );
  },
};

const usage: Command = {
  summary: 'MCP requests a machine client made per UTC day (refused ones not counted)',
  usage: 'clients usage <client_id> [--days <n, default 7>] [--json]',
  run: async (ctx) => {
    const { id, values } = oneId(ctx, { days: { type: 'string' }, json: { type: 'boolean' } });
    const days = wholeNumberOption('--days', typeof values.days === 'string' ? values.days : undefined, 1) ?? 7;
    const { client, rows } = await withClients(ctx, async (store) => {
      const found = await store.get(id);
      if (!found) throw new UsageError(`no machine client ${id}`);
      return { client: found, rows: await store.usage(id, days) };
    });
    if (values.json) return void ctx.stdout.write(`${JSON.stringify({ ...asJson(client), usage: rows })}\n`);
    for (const row of rows) ctx.stdout.write(`${row.day}  ${row.requests}${client.quotaPerDay ? ` / ${client.quotaPerDay}` : ''}\n`);
  },
};

export const clientsGroup: CommandGroup = {
  summary: 'Machine clients: the OAuth client-credentials grant for agents that act without a person (docs/oauth.md)',
  commands: { create, list, revoke, usage },
};
