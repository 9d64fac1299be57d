import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { describe, expect } from 'vitest';
import { generateCatalogue } from '@fragrance/dataset';
import { UserStore } from '@fragrance/identity';
import { makeRecord } from '@fragrance/search/testing';
import { freePort } from '@fragrance/testkit';
import { launchChromium } from '@fragrance/testkit/browser';
import { catalogueOf, mcpStackTest } from '../src/testing/stack.ts';

// Interop with the clients desktop assistants and developers really use, against the whole stack
// behind the edge (gateway, auth, catalogue and this MCP server as child processes): the
// `mcp-remote` stdio proxy (what a desktop host launches for a remote server) and the MCP
// Inspector's CLI. Each signs in through OAuth in headless Chromium (Debian's chromium, driven by
// playwright-core), then initialize → list tools/resources/prompts → call every tool → read a
// resource → complete an argument → go on after its access token expired (a refresh).
// mcp-remote refreshes an access token once less than a minute of it is left (TOKEN_EXPIRY_MARGIN_MS):
// a lifetime just over that makes it refresh a few seconds after sign-in.
const ACCESS_TOKEN_TTL = 65;
const MCP_REMOTE_REFRESH_MARGIN = 60;
const person = { email: 'interop@example.com', password: 'interop passphrase long enough' };
const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };
const KNOWN = makeRecord({
  id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  name: 'Zygomatic Vetiver Nocturne',
  brand: 'Maison Testière',
  notes: { top: ['grapefruit'], heart: ['vetiver'], base: ['cedar'] },
  accords: ['woody', 'earthy', 'citrus'],
  perfumers: ['Quillon Abernathy'],
  available_in_au: true,
});
const OTHER = makeRecord({ id: '7a2e3d4c-5b6f-4071-9b8c-0d1e2f3a4b5c', name: 'Zygomatic Matin', brand: 'Maison Testière' });

/** One call of every tool, with arguments that succeed against the test catalogue. */
const EVERY_TOOL: Record<string, Record<string, unknown>> = {
  search_fragrances: { query: 'zygomatic', sort: 'rating', limit: 3 },
  get_fragrance: { id: KNOWN.id },
  similar_fragrances: { id: KNOWN.id, limit: 3 },
  list_facets: { brand: 'Maison Testière' },
  suggest: { q: 'zygomatic vet' },
  list_brands: { search: 'testiere' },
  get_brand: { slug: 'maison-testiere' },
  list_notes: { search: 'vetiv' },
  list_accords: { limit: 3 },
  list_perfumers: { search: 'quillon' },
  compare_fragrances: { ids: [KNOWN.id, OTHER.id] },
  // These records have no vectors (and the catalogue loads no embedding model), so the search is
  // lexical: the description's words must match.
  discover_fragrances: { description: 'zygomatic vetiver', limit: 3 },
};

const requireHere = createRequire(import.meta.url);
/** A package's bin script, resolved from this package's dependencies. */
function binOf(pkg: string, relative: string): string {
  return join(dirname(requireHere.resolve(`${pkg}/package.json`)), relative);
}

const it = mcpStackTest
  /** The whole stack behind the edge, as processes, with a short access-token lifetime; the person who signs in. */
  .extend('stack', { scope: 'file' }, async ({ redis, es, startStack }) => {
    const alias = await catalogueOf(es, [KNOWN, OTHER, ...generateCatalogue({ count: 60, seed: 13 })]);
    await new UserStore(redis.redis, { prefix: redis.prefix, scrypt: TEST_SCRYPT }).create(person.email, person.password);
    return startStack({
      services: ['catalogue', 'auth', 'mcp', 'gateway'],
      alias,
      env: {
        auth: { ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL) },
        mcp: { MCP_RATE_LIMIT_PER_MINUTE: '6000', MCP_RATE_LIMIT_BURST: '1000' },
      },
      // Four services boot at once beside Chromium: give each more than the default minute on a busy machine.
      bootMs: 150_000,
    });
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }) => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  })
  /** A directory for the clients' homes and config, removed after the file. */
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('scratch', { scope: 'file' }, async ({}, { onCleanup }) => {
    const scratch = await mkdtemp(join(tmpdir(), 'mcp-interop-'));
    onCleanup(() => rm(scratch, { recursive: true, force: true }));
    return scratch;
  });

// The stack and the browser start before the first test, under the hook's timeout.
it.beforeAll(async ({ stack, browser }) => {
  expect(stack.urls.edge).toBeTruthy();
  expect(browser.isConnected()).toBe(true);
}, 400_000);

/** What a person does in the browser the client sent them to: sign in, allow, and land on the client's callback. */
async function signInAndAllow(browser: Browser, authorizationUrl: string, callbackPrefix: string): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(authorizationUrl);
    if (await page.getByLabel('Password').isVisible()) {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callbackPrefix));
  } catch (error) {
    const page = context.pages()[0];
    throw new Error(`${String(error)}\nthe page (${page?.url() ?? '?'}) said: ${(await page?.innerText('body').catch(() => '')) ?? ''}`, {
      cause: error,
    });
  } finally {
    await context.close();
  }
}

/** The first URL of the authorization endpoint at `edge` a client printed to its stderr. */
function authorizationUrlIn(edge: string, text: string): string | undefined {
  return new RegExp(`${edge.replaceAll('.', '\\.')}/oauth/authorize\\?\\S+`).exec(text)?.[0];
}

/** Structured content of each tool call; fails on a tool error with its text. */
function expectSucceeded(name: string, result: CallToolResult): void {
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  expect(result.structuredContent, name).toEqual(expect.any(Object));
}

describe('mcp-remote (the stdio proxy desktop hosts launch)', () => {
  it('signs in through the browser, then lists, calls every tool, reads, completes, and refreshes', async ({ stack, browser, scratch }) => {
    const { edge } = stack.urls;
    const configDir = join(scratch, 'mcp-remote');
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binOf('mcp-remote', 'dist/proxy.js'), `${edge}/mcp`, String(callbackPort)],
      // BROWSER=true: its opener "opens" nothing; the person's browser here is the test's Chromium.
      env: { PATH: process.env.PATH ?? '', HOME: scratch, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: 'true' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'interop-mcp-remote', version: '1.0.0' });
    try {
      const connected = client.connect(transport);
      await expect.poll(() => authorizationUrlIn(edge, stderr), { timeout: 30_000 }).toBeTruthy();
      const url = authorizationUrlIn(edge, stderr)!;
      expect(new URL(url).searchParams.get('resource')).toBe(`${edge}/mcp`);
      await signInAndAllow(browser, url, `http://localhost:${callbackPort}/oauth/callback`);
      await connected;
      expect(client.getServerVersion()?.name).toBe('fragrance-catalogue');

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(Object.keys(EVERY_TOOL)));
      expect((await client.listResources()).resources.length).toBeGreaterThan(3);
      expect((await client.listPrompts()).prompts.length).toBe(3);
      for (const [name, args] of Object.entries(EVERY_TOOL)) {
        expectSucceeded(name, await client.callTool({ name, arguments: args }));
      }
      const brand = await client.readResource({ uri: 'fragrance://brands/maison-testiere' });
      expect(JSON.parse((brand.contents[0] as { text: string }).text)).toMatchObject({ brand: { name: 'Maison Testière' } });
      const completion = await client.complete({
        ref: { type: 'ref/prompt', name: 'scent_for_occasion' },
        argument: { name: 'liked_notes', value: 'grapefruit, vetiv' },
      });
      expect(completion.completion.values).toContain('grapefruit, vetiver');

      // Once less than its margin of the access token is left, the proxy refreshes and goes on.
      const tokens = async () => {
        const dir = (await readdir(configDir)).find((d) => d.startsWith('mcp-remote'))!;
        const file = (await readdir(join(configDir, dir))).find((f) => f.endsWith('_tokens.json'))!;
        return JSON.parse(await readFile(join(configDir, dir, file), 'utf8')) as { access_token: string; refresh_token: string };
      };
      const before = await tokens();
      const refreshFrom = (decodeJwt(before.access_token).iat! + ACCESS_TOKEN_TTL - MCP_REMOTE_REFRESH_MARGIN + 1) * 1000;
      // The proxy refreshes on a call past its margin and stores the new tokens on its own schedule:
      // call (each call must succeed) until the stored token changes, at most ~15 s past the margin.
      await expect
        .poll(
          async () => {
            expectSucceeded('get_fragrance', await client.callTool({ name: 'get_fragrance', arguments: { id: KNOWN.id } }));
            return (await tokens()).access_token;
          },
          { timeout: Math.max(0, refreshFrom - Date.now()) + 15_000, interval: 1_000 },
        )
        .not.toBe(before.access_token);
      const after = await tokens();
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).not.toBe(before.refresh_token);
    } catch (error) {
      throw new Error(`${String(error)}\nmcp-remote said:\n${stderr}`, { cause: error });
    } finally {
      await client.close();
    }
  }, 90_000);
});

/** Runs the Inspector's CLI once; resolves to the result of its JSON envelope on stdout (it exits non-zero on failure). */
function inspector(args: string[], env: Record<string, string>, onStderr?: (text: string) => void): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binOf('@modelcontextprotocol/inspector', 'clients/launcher/build/index.js'), '--cli', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`inspector ${args.join(' ')} exited ${String(code)}: ${stderr}`));
      else resolve((JSON.parse(stdout) as { result: unknown }).result);
    });
  });
}

/** Runs the Inspector's session CLI (mcpdo) once; resolves to its JSON output (it exits non-zero on failure). */
function mcpdo(args: string[], env: Record<string, string>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [binOf('@modelcontextprotocol/inspector', 'clients/mcpdo/build/mcp-bin.js'), '--format', 'json', ...args],
      {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`mcpdo ${args.join(' ')} exited ${String(code)}: ${stderr}${stdout}`));
      else resolve(stdout.trim() ? JSON.parse(stdout) : undefined);
    });
  });
}

/** The JWTs (our access tokens; refresh tokens are opaque) in a text, however the store nests or encodes its JSON. */
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/g;
const accessTokensIn = (text: string): string[] => [...new Set(text.match(JWT) ?? [])];

/** The file under `dir` where the Inspector keeps its tokens. */
async function tokenFileUnder(dir: string): Promise<string> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    // A file may vanish while we look (mcpdo's daemon removes its lock and socket as it stops).
    if (accessTokensIn(await readFile(file, 'utf8').catch(() => '')).length > 0) return file;
  }
  throw new Error(`no stored access token under ${dir}`);
}

/** Replaces each stored access token by one with a broken signature; resolves to the broken ones. */
async function spoilAccessTokens(file: string): Promise<string[]> {
  let text = await readFile(file, 'utf8');
  const broken: string[] = [];
  for (const token of accessTokensIn(text)) {
    const spoilt = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    text = text.replaceAll(token, spoilt);
    broken.push(spoilt);
  }
  await writeFile(file, text);
  return broken;
}

describe('MCP Inspector CLI', () => {
  it('signs in through the browser, then lists, calls every tool, reads, completes, and refreshes', async ({ stack, browser, scratch }) => {
    const { edge } = stack.urls;
    const home = join(scratch, 'inspector');
    const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    // MCP_AUTO_OPEN_ENABLED: interactive sign-in without a terminal; BROWSER=true: its opener opens nothing;
    // a file secret store (under HOME): no OS keychain here, and each run is a new process.
    const env = { HOME: home, MCP_AUTO_OPEN_ENABLED: 'true', BROWSER: 'true', MCP_INSPECTOR_SECRET_STORE: 'file' };
    const run = (method: string, ...more: string[]) =>
      inspector([`${edge}/mcp`, '--transport', 'http', '--format', 'json', '--callback-url', callback, '--method', method, ...more], env);

    // The first call signs in: the CLI registers, prints the authorization URL and waits at its callback.
    let printed = '';
    const first = inspector(
      [`${edge}/mcp`, '--transport', 'http', '--format', 'json', '--callback-url', callback, '--method', 'tools/list'],
      env,
      (stderr) => (printed = stderr),
    );
    // Until the URL shows, the CLI must not have exited (its error says why it did).
    await Promise.race([expect.poll(() => authorizationUrlIn(edge, printed), { timeout: 30_000 }).toBeTruthy(), first]);
    const url = authorizationUrlIn(edge, printed);
    if (!url) throw new Error('the Inspector printed no authorization URL');
    await signInAndAllow(browser, url, callback);
    const tools = (await first) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(Object.keys(EVERY_TOOL)));

    const stored = ['--stored-auth-only'];
    expect(((await run('resources/list', ...stored)) as { resources: unknown[] }).resources.length).toBeGreaterThan(3);
    expect(((await run('prompts/list', ...stored)) as { prompts: unknown[] }).prompts).toHaveLength(3);
    for (const [name, args] of Object.entries(EVERY_TOOL)) {
      const result = (await run('tools/call', ...stored, '--tool-name', name, '--tool-args-json', JSON.stringify(args))) as CallToolResult;
      expectSucceeded(name, result);
    }
    const read = (await run('resources/read', ...stored, '--uri', `fragrance://catalogue/${KNOWN.id}`)) as { contents: { text: string }[] };
    expect(JSON.parse(read.contents[0]!.text)).toMatchObject({ id: KNOWN.id });
    // The same stored sign-in on the 2026-07-28 revision (server/discover, per-request envelope).
    const modern = (await run(
      'tools/call',
      ...stored,
      '--protocol-era',
      'modern',
      '--tool-name',
      'suggest',
      '--tool-args-json',
      '{"q":"zygomatic"}',
    )) as CallToolResult;
    expectSucceeded('suggest on 2026-07-28', modern);

    // Completion: not a method of the one-shot --cli (its ONE_SHOT_METHODS), but of the package's session
    // CLI, mcpdo (a daemon under HOME), which shares the stored sign-in.
    try {
      await mcpdo(['--stored-auth-only', '--connection', 'catalogue', 'connect', `${edge}/mcp`, '--transport', 'http'], env);
      const completion = await mcpdo(
        [
          '--connection',
          'catalogue',
          'prompts/complete',
          '--complete-ref-type',
          'ref/prompt',
          '--complete-ref',
          'scent_for_occasion',
          '--complete-arg-name',
          'liked_notes',
          '--complete-arg-value',
          'grapefruit, vetiv',
        ],
        env,
      );
      expect(JSON.stringify(completion)).toContain('grapefruit, vetiver');
    } finally {
      await mcpdo(['daemon', 'stop'], env).catch(() => undefined);
    }

    // The Inspector refreshes when the server refuses its access token (it has no early-refresh margin, and
    // waiting out a lifetime mcp-remote can live with takes too long): the stored one is made invalid, as a
    // revoked or expired token would be, and the next call must get a new one with the refresh token.
    const store = await tokenFileUnder(join(home, '.mcp-inspector'));
    const spoilt = await spoilAccessTokens(store);
    expect(spoilt.length).toBeGreaterThan(0);
    const again = (await run(
      'tools/call',
      ...stored,
      '--tool-name',
      'get_fragrance',
      '--tool-args-json',
      JSON.stringify({ id: KNOWN.id }),
    )) as CallToolResult;
    expectSucceeded('get_fragrance after a refused token', again);
    const renewed = accessTokensIn(await readFile(store, 'utf8'));
    expect(renewed.length).toBeGreaterThan(0);
    for (const token of renewed) expect(spoilt).not.toContain(token);
  }, 120_000);
});
