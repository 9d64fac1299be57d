import { z } from 'zod';
import { parseConfig, redisConnectionFields, redisPrefix, seconds } from '@fragrance/config';
import {
  disableUser,
  GrantStore,
  IdentityError,
  KeyStore,
  MIN_PASSWORD_LENGTH,
  RevocationStore,
  UserStore,
  type User,
} from '@fragrance/identity';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { withRedis } from '../redis.ts';

/** What `users` and `auth` commands read from the environment (the names the auth service uses). */
export const UsersConfig = z.object({
  ...redisConnectionFields(),
  REDIS_PREFIX: redisPrefix(),
  /** The auth service's access-token lifetime: a revoked grant's record must outlive its tokens. */
  ACCESS_TOKEN_TTL_SECONDS: seconds(86_400),
});

interface Stores {
  users: UserStore;
  revocations: RevocationStore;
  keys: KeyStore;
  grants: GrantStore;
}

/** Opens Redis for one command (failing fast when it is down) and always closes it. */
async function withStores<T>(ctx: CommandContext, use: (stores: Stores) => Promise<T>): Promise<T> {
  const config = parseConfig(UsersConfig, ctx.env);
  const prefix = config.REDIS_PREFIX;
  try {
    return await withRedis(config, (redis) => {
      const revocations = new RevocationStore(redis, { prefix });
      return use({
        users: new UserStore(redis, { prefix }),
        revocations,
        keys: new KeyStore(redis, { prefix }),
        grants: new GrantStore(redis, { prefix, revocations, accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS }),
      });
    });
  } catch (error) {
    if (error instanceof IdentityError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The password from standard input: typed without echo on a terminal, else the first line of
 * what was piped in (`printf '%s\n' "$PW" | npm run ops -- users create --email ...`).
 */
export async function readPassword(ctx: CommandContext): Promise<string> {
  const stdin = ctx.stdin as NodeJS.ReadStream;
  if (stdin.isTTY && typeof stdin.setRawMode === 'function') {
    ctx.stderr.write('Password (not shown): ');
    stdin.setRawMode(true);
    stdin.resume();
    try {
      return await new Promise<string>((resolve, reject) => {
        let value = '';
        const onData = (chunk: Buffer) => {
          for (const char of chunk.toString('utf8')) {
            if (char === '\r' || char === '\n') {
              stdin.off('data', onData);
              ctx.stderr.write('\n');
              return void resolve(value);
            }
            if (char === '\u0003') {
              stdin.off('data', onData);
              return void reject(new UsageError('cancelled'));
            }
            if (char === '\u007f' || char === '\b')
              value = Array.from(value).slice(0, -1).join(''); // by code point, not UTF-16 unit
            else value += char;
          }
        };
        stdin.on('data', onData);
      });
    } finally {
      stdin.setRawMode(false);
      stdin.pause();
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function emailArgument(ctx: CommandContext, allowPositional: boolean): { email: string; json: boolean } {
  const { values, positionals } = parseOptions(ctx.argv, { email: { type: 'string' }, json: { type: 'boolean' } }, allowPositional);
  const email = values.email ?? positionals[0];
  if (!email || positionals.length > 1 || (values.email && positionals.length > 0)) throw new UsageError('expected one email address');
  return { email, json: values.json ?? false };
}

const create: Command = {
  summary: `Create a user who can sign in to authorize MCP clients (password from stdin, min ${MIN_PASSWORD_LENGTH} chars)`,
  usage: 'users create --email <email> [--json]',
  run: async (ctx) => {
    const { email, json } = emailArgument(ctx, false);
    const password = await readPassword(ctx);
    if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
    const user = await withStores(ctx, ({ users }) => users.create(email, password));
    ctx.stdout.write(
      json
        ? `${JSON.stringify({ id: user.id, email: user.email, disabled: false, created_at: user.createdAt })}\n`
        : `created user ${user.email} (${user.id})\n`,
    );
  },
};

const disable: Command = {
  summary: 'Disable a user: no more sign-in or refresh, and every token already issued stops working',
  usage: 'users disable <email>',
  run: async (ctx) => {
    const { email, json } = emailArgument(ctx, true);
    const user = await withStores(ctx, ({ users, revocations }) => disableUser(users, revocations, email));
    ctx.stdout.write(
      json
        ? `${JSON.stringify({ id: user.id, email: user.email, disabled: true })}\n`
        : `disabled ${user.email}; its grants and tokens are revoked\n`,
    );
  },
};

const enable: Command = {
  summary: 'Enable a disabled user again (tokens revoked while disabled stay revoked)',
  usage: 'users enable <email>',
  run: async (ctx) => {
    const { email } = emailArgument(ctx, true);
    const user = await withStores(ctx, ({ users }) => users.setDisabled(email, false));
    ctx.stdout.write(`enabled ${user.email}\n`);
  },
};

const list: Command = {
  summary: 'List users (email, id, status)',
  usage: 'users list [--json]',
  run: async (ctx) => {
    const { values } = parseOptions(ctx.argv, { json: { type: 'boolean' } });
    const users = await withStores(ctx, ({ users: store }) => store.list());
    if (values.json) {
      ctx.stdout.write(
        `${JSON.stringify(users.map((u) => ({ id: u.id, email: u.email, disabled: u.disabled, created_at: u.createdAt })))}\n`,
      );
      return;
    }
    if (users.length === 0) return void ctx.stdout.write('no users\n');
    for (const u of users) ctx.stdout.write(`${u.email.padEnd(40)} ${u.id}  ${u.disabled ? 'disabled' : 'active'}  ${u.createdAt}\n`);
  },
};

async function existingUser(users: UserStore, email: string): Promise<User> {
  const user = await users.findByEmail(email);
  if (!user) throw new UsageError(`no user with email ${email.trim().toLowerCase()}`);
  return user;
}

const grants: Command = {
  summary: "List the apps a user connected (the user's account page shows the same)",
  usage: 'users grants <email> [--json]',
  run: async (ctx) => {
    const { email, json } = emailArgument(ctx, true);
    const { user, apps } = await withStores(ctx, async ({ users, grants: store }) => {
      const found = await existingUser(users, email);
      return { user: found, apps: await store.connectedApps(found.id) };
    });
    if (json) {
      const rows = apps.map((a) => ({
        client_id: a.clientId,
        client_name: a.clientName ?? null,
        client_uri: a.clientUri ?? null,
        scopes: a.scopes,
        first_authorized_at: a.firstAuthorizedAt,
        last_used_at: a.lastUsedAt ?? null,
        grants: a.grantIds.length,
      }));
      return void ctx.stdout.write(`${JSON.stringify(rows)}\n`);
    }
    if (apps.length === 0) return void ctx.stdout.write(`${user.email} has no connected apps\n`);
    for (const a of apps) {
      ctx.stdout.write(
        `${a.clientId}  ${JSON.stringify(a.clientName ?? '(no name)')}  scopes=${a.scopes.join(',')}  first=${a.firstAuthorizedAt}  last_used=${a.lastUsedAt ?? 'never'}\n`,
      );
    }
  },
};

const revokeGrants: Command = {
  summary: "Revoke a user's grants (one app with --client, else all): tokens refused at once, refresh tokens dead",
  usage: 'users revoke-grants <email> [--client <id>] [--json]',
  run: async (ctx) => {
    const { values, positionals } = parseOptions(ctx.argv, { client: { type: 'string' }, json: { type: 'boolean' } }, true);
    const email = positionals[0];
    if (!email || positionals.length > 1) throw new UsageError('expected one email address');
    if (values.client !== undefined && !values.client.trim()) throw new UsageError('--client needs a client id');
    const revoked = await withStores(ctx, async ({ users, grants: store }) =>
      store.revoke((await existingUser(users, email)).id, values.client),
    );
    if (values.json) return void ctx.stdout.write(`${JSON.stringify({ revoked: revoked.length })}\n`);
    const what = values.client ? `of client ${values.client}` : 'of every app';
    ctx.stdout.write(revoked.length ? `revoked ${revoked.length} grant(s) ${what}\n` : `nothing to revoke ${what}\n`);
  },
};

export const usersGroup: CommandGroup = {
  summary: 'People who sign in to the OAuth authorization server',
  commands: { create, disable, enable, list, grants, 'revoke-grants': revokeGrants },
};

const rotateKeys: Command = {
  summary: 'Add a new token-signing key (used from the next auth restart); older keys stay in the JWKS',
  usage: 'auth rotate-keys [--keep <n>]',
  run: async (ctx) => {
    const { values } = parseOptions(ctx.argv, { keep: { type: 'string' } });
    const keep = wholeNumberOption('--keep', values.keep, 2, 10) ?? 3;
    const result = await withStores(ctx, ({ keys }) => keys.rotateSigningKeys(keep));
    ctx.stdout.write(
      `new signing key ${result.kid}; published: ${result.kept.join(', ')}${result.retired.length ? `; retired: ${result.retired.join(', ')}` : ''}\nrestart the auth service instances to sign with it\n`,
    );
  },
};

export const authGroup: CommandGroup = {
  summary: 'The OAuth authorization server: signing keys',
  commands: { 'rotate-keys': rotateKeys },
};
