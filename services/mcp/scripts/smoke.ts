// Smoke test of a running stack (e.g. `npm start`) from an assistant's point of view: the MCP
// SDK client with its OAuth support discovers, registers, authorizes (this script signs in and
// consents over HTTP like the user would), lists the tools and calls each one.
//
//   node scripts/smoke.ts --email you@example.com --password '...' [--edge http://127.0.0.1:8080] [--create-user]
//
// --create-user creates the account first in the stack's Redis (REDIS_URL, default
// redis://127.0.0.1:6379; REDIS_PREFIX, default fcs:) when it does not exist yet.
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { UserStore } from '@fragrance/identity';
import { createRedisClient, quietRedisLogger, waitForRedis } from '@fragrance/redis';
import { FormUser } from '@fragrance/testkit';
import { MemoryOAuthProvider } from '../src/testing/oauth-provider.ts';

const { values } = parseArgs({
  // `pnpm run smoke -- --email …` passes the `--` through.
  args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--')),
  options: {
    edge: { type: 'string', default: 'http://127.0.0.1:8080' },
    email: { type: 'string' },
    password: { type: 'string' },
    'create-user': { type: 'boolean', default: false },
  },
});
if (!values.email || !values.password) {
  process.stderr.write('usage: node scripts/smoke.ts --email <email> --password <password> [--edge <url>] [--create-user]\n');
  process.exit(2);
}
const credentials = { email: values.email, password: values.password };
const edge = values.edge.replace(/\/+$/, '');
const say = (message: string) => process.stdout.write(`${message}\n`);

if (values['create-user']) {
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
  const redis = createRedisClient({ REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, quietRedisLogger, 'command');
  await waitForRedis(redis); // fails with "cannot reach Redis at host:port: …"
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
  const users = new UserStore(redis, { prefix: process.env.REDIS_PREFIX ?? 'fcs:' });
  if (!(await users.findByEmail(credentials.email))) {
    await users.create(credentials.email, credentials.password);
    say(`created user ${credentials.email}`);
  }
  redis.disconnect();
}

const provider = new MemoryOAuthProvider('http://127.0.0.1:53682/callback');
const mcpUrl = new URL(`${edge}/mcp`);
const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
try {
  await new Client({ name: 'smoke', version: '1.0.0' }).connect(first);
  throw new Error('expected the unauthenticated connection to be refused');
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
}
say(`401 → discovered and registered client ${provider.client?.client_id}`);
const page = await new FormUser(edge).authorize(provider.authorizationUrl!.href, credentials);
const callback = page.location ? new URL(page.location).searchParams : undefined;
if (!callback?.get('code')) throw new Error(`authorization did not return a code (status ${page.status}): ${page.body.slice(0, 300)}`);
// The whole callback: the SDK checks its `iss` against the authorization server (RFC 9207).
await first.finishAuth(callback);
say('signed in, consented, exchanged the code for tokens');

const client = new Client({ name: 'smoke', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
const { tools } = await client.listTools();
say(`tools: ${tools.map((t) => t.name).join(', ')}`);

const call = async (name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  const text = (result.content[0] as { text?: string } | undefined)?.text ?? '';
  say(`\n${name}(${JSON.stringify(args)}):\n${text.split('\n').slice(0, 6).join('\n')}`);
  return result.structuredContent as Record<string, unknown>;
};
const search = await call('search_fragrances', { query: 'rose oud', limit: 3 });
const first3 = search.data as { id: string }[];
if (!first3[0]) throw new Error('the search found nothing: is the catalogue loaded?');
await call('get_fragrance', { id: first3[0].id });
await call('similar_fragrances', { id: first3[0].id, limit: 3 });
await call('list_facets', { concentration: 'EDP' });
await client.close();
say('\nsmoke test passed');
