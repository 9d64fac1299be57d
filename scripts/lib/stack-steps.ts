// Steps `npm start` and `npm run cluster` share: the cursor secret, the catalogue, the demo key
// and user, and the log line format. Each runs the operator CLI with the stack's environment.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pWaitFor, { TimeoutError } from 'p-wait-for';
import { DEV_PORTS } from '@fragrance/config';
import { EMBEDDING_MODEL_KEY } from '@fragrance/embeddings';
import { scriptsConfig } from '../config.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const LOCAL_DIR = scriptsConfig.FRAGRANCE_LOCAL_DIR ?? `${ROOT}.local`;
/** Held by the running stack (`npm start` or `npm run cluster`): one at a time on the default ports. */
export const STACK_LOCK = `${LOCAL_DIR}/stack.lock`;

export type Env = Record<string, string | undefined>;

export function sayAs(tag: string): (message: string) => void {
  return (message) => void process.stdout.write(`\x1b[1m[${tag}]\x1b[0m ${message}\n`);
}

export function runStep(say: (m: string) => void, env: Env, description: string, command: string, args: string[]): void {
  say(description);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`${description} failed (exit ${result.status ?? result.signal})`);
}

/**
 * The catalogue's cursor signing key (CURSOR_SECRET): the operator's if set, else one generated
 * on the first start and kept in .local/ (git-ignored, owner-only), so cursors survive restarts.
 */
export function cursorSecret(): string {
  if (scriptsConfig.CURSOR_SECRET) return scriptsConfig.CURSOR_SECRET;
  const dir = `${LOCAL_DIR}/catalogue`;
  const file = `${dir}/cursor-secret`;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/**
 * Loads the 75k synthetic catalogue when the `fragrances` alias is missing, or re-ingests it
 * when its index predates the current mapping/folding (`catalogue status` says which): generate
 * the NDJSON if absent, then ingest (new index, verify, atomic alias swap). Otherwise reuse it.
 */
export function prepareCatalogue(say: (m: string) => void, env: Env, ingestArgs: string[] = []): void {
  const ops = ['packages/ops/src/cli.ts', 'catalogue'];
  const probe = spawnSync(process.execPath, [...ops, 'status', '--json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`catalogue status failed: ${probe.stderr}`);
  const status = JSON.parse(probe.stdout) as { index: string | null; documents: number; current: boolean };
  if (status.current && status.documents > 0) {
    say(`catalogue: ${status.index} (${status.documents} documents) is current; keeping it`);
    return;
  }
  if (!existsSync(`${ROOT}data/generated/catalogue.ndjson`)) {
    runStep(say, env, 'catalogue: generating 75,000 synthetic records', process.execPath, [...ops, 'generate']);
  }
  runStep(
    say,
    env,
    status.index ? 'catalogue: index predates this code; re-ingesting' : 'catalogue: ingesting into Elasticsearch',
    process.execPath,
    [...ops, 'ingest', ...ingestArgs],
  );
}

/**
 * On a first start (or after a model change) most records have no vector of the shipped model:
 * queues an enrichment run in the background (`enrich run --detach`), which embeds only those
 * rows. The stack is up meanwhile; searches are lexical until the vectors exist. Shared by
 * `npm start` and `npm run cluster`. Never fails the start: when the vectors cannot be counted or
 * the run cannot be queued it warns (searches stay lexical; `npm run ops -- enrich run` fills them).
 */
export async function fillRecordVectors(
  say: (m: string) => void,
  env: Env,
  elasticsearchUrl: string,
  queueRun: () => Promise<{ status: number | null; stderr: string }> = () => opsCli(env, ['enrich', 'run', '--detach']),
): Promise<void> {
  const alias = env.CATALOGUE_ALIAS ?? 'fragrances';
  const count = async (query?: object): Promise<number> => {
    const res = await fetch(`${elasticsearchUrl}/${alias}/_count`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(query ? { query } : {}),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return ((await res.json()) as { count: number }).count;
  };
  const warn = (what: string) =>
    say(`warning: ${what}; searches stay lexical until the records have vectors (fill them with: npm run ops -- enrich run)`);
  let all: number;
  let embedded: number;
  try {
    [all, embedded] = await Promise.all([count(), count({ term: { 'embedding.model': EMBEDDING_MODEL_KEY } })]);
  } catch (error) {
    warn(
      `could not count the record vectors (${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)})`,
    );
    return;
  }
  if (embedded >= all) {
    say(`record vectors: all ${all} records have one`);
    return;
  }
  const result = await queueRun().catch((error: unknown) => ({ status: null, stderr: String(error) }));
  if (result.status !== 0) {
    warn(`could not queue the enrichment run that fills record vectors (${result.stderr.trim() || `exit ${result.status}`})`);
    return;
  }
  say(
    `record vectors: ${embedded} of ${all} records have one; an enrichment run fills the rest in the background (semantic search is lexical until then; npm run ops -- enrich status)`,
  );
}

/**
 * Runs the operator CLI without blocking the event loop: the supervisor must keep reading its
 * children's output meanwhile (a full pipe would stall a service that logs).
 */
export function opsCli(env: Env, args: string[], input = ''): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['packages/ops/src/cli.ts', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** A fresh demo key through the operator CLI; --replace revokes the previous demo keys. */
export async function createDemoKey(env: Env): Promise<string> {
  const result = await opsCli(env, ['keys', 'create', '--owner', 'demo', '--quota', '10000', '--replace', '--json']);
  if (result.status !== 0) throw new Error(`creating the demo key failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { api_key: string }).api_key;
}

/** The storefront example's own loopback origin (`npm run example:storefront`), allowed for its demo key. */
export const STOREFRONT_ORIGIN = `http://127.0.0.1:${DEV_PORTS.storefront}`;
/** Where the storefront example reads its key and the API's address (git-ignored). */
export const STOREFRONT_ENV_FILE = `${ROOT}examples/storefront/.env.local`;

/**
 * A fresh publishable demo key for the storefront example, allowed from its loopback origin only
 * (--replace revokes the previous publishable demo keys, not the secret one), written to
 * examples/storefront/.env.local with the API's {base_url}. A publishable key is not a secret
 * (it is sent to every browser that opens the page), so keeping it in a file is fine.
 */
export async function createStorefrontKey(
  env: Env,
  gatewayUrl: string,
  envFile = STOREFRONT_ENV_FILE,
  ops: (args: string[]) => Promise<{ status: number | null; stdout: string; stderr: string }> = (args) => opsCli(env, args),
): Promise<string> {
  const result = await ops([
    'keys',
    'create',
    '--publishable',
    '--owner',
    'demo',
    '--quota',
    '10000',
    '--origin',
    STOREFRONT_ORIGIN,
    '--replace',
    '--json',
  ]);
  if (result.status !== 0) throw new Error(`creating the storefront's publishable key failed: ${result.stderr}`);
  const apiKey = (JSON.parse(result.stdout) as { api_key: string }).api_key;
  writeFileSync(
    envFile,
    `# Written by npm start: the storefront example's publishable demo key (not a secret) and the API it calls.\nSTOREFRONT_PUBLISHABLE_KEY=${apiKey}\nSTOREFRONT_API_URL=${gatewayUrl}/v1\n`,
  );
  return apiKey;
}

/**
 * A demo user for the OAuth sign-in page, created once; its generated password is printed only
 * on the start that creates it (it is stored only as a scrypt hash).
 */
export async function ensureDemoUser(env: Env): Promise<{ email: string; password?: string }> {
  const email = 'demo@fragrance.example';
  const listed = await opsCli(env, ['users', 'list', '--json']);
  if (listed.status !== 0) throw new Error(`listing users failed: ${listed.stderr}`);
  if ((JSON.parse(listed.stdout) as { email: string }[]).some((u) => u.email === email)) return { email };
  const password = randomBytes(12).toString('base64url');
  const created = await opsCli(env, ['users', 'create', '--email', email], `${password}\n`);
  if (created.status !== 0) throw new Error(`creating the demo user failed: ${created.stderr}`);
  return { email, password };
}

/** Polls `url` until it answers 200, while `stillOurs` holds (our own process is up). */
export async function waitForOk(url: string, timeoutMs: number, stillOurs: () => boolean = () => true): Promise<void> {
  let last = '';
  const answered = async () => {
    if (!stillOurs()) throw new Error(`the process behind ${url} is not running`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return true;
      last = `${res.status} ${await res.text()}`;
    } catch (error) {
      last = String(error);
    }
    return false;
  };
  try {
    await pWaitFor(answered, { interval: 500, timeout: timeoutMs });
  } catch (error) {
    if (error instanceof TimeoutError) throw new Error(`${url} did not answer 200: ${last}`, { cause: error });
    throw error;
  }
}

/** Prints how to use the stack once it is ready. */
export function printWelcome(
  say: (m: string) => void,
  gatewayUrl: string,
  demoKey: string,
  demoUser: { email: string; password?: string },
  storefrontKey?: string,
): void {
  say(`demo API key (secret, owner demo, 10000 requests/day; earlier demo keys revoked): ${demoKey}`);
  say(`try: curl -H 'Authorization: Bearer ${demoKey}' '${gatewayUrl}/v1/fragrances?query=rose&limit=3'`);
  if (storefrontKey) {
    say(
      `demo publishable key (for web pages, from ${STOREFRONT_ORIGIN} only; written to examples/storefront/.env.local): ${storefrontKey}`,
    );
    say(`Storefront: npm run example:storefront → ${STOREFRONT_ORIGIN}`);
  }
  say(`API reference (try it with the key above): ${gatewayUrl}/docs  ·  examples: examples/README.md`);
  say('enrich the catalogue now (else nightly at 02:00 Australia/Sydney): npm run ops -- enrich run');
  say(
    demoUser.password
      ? `OAuth sign-in (MCP clients): ${demoUser.email} / ${demoUser.password}  (shown once; kept across starts)`
      : `OAuth sign-in (MCP clients): ${demoUser.email} (created earlier; its password was shown then; npm run ops -- users create --email <e> adds another)`,
  );
  say(`OAuth metadata: ${gatewayUrl}/.well-known/oauth-authorization-server`);
  say('press Ctrl-C to stop');
}
