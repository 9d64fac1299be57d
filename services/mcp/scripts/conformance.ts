// Runs the @modelcontextprotocol/conformance server scenarios of MCP 2025-11-25 and 2026-07-28
// against this MCP server. The suite sends no bearer token, so the server this script starts sets
// a valid one on every request (signed by a throw-away key whose JWKS this script serves) before
// the real app sees it: Origin check, token verification, revocation lookup, rate limit, tools.
// Which scenarios apply, and why the others do not: conformance-scenarios.ts.
//
//   node scripts/conformance.ts [--revision 2025-11-25|2026-07-28 ...] [--json report.json] [--scenario name ...]
//
// Without --revision both revisions run; the exit code is 1 when an applicable scenario fails.
//
// Redis comes from REDIS_URL, else the shared local test instance (127.0.0.1:6390).
// CATALOGUE_SERVICE_URL, when set, lets the tools reach a real catalogue (no scenario needs it).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { z } from 'zod';
import { httpUrl, parseConfig } from '@fragrance/config';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { close, listen, startLocalRedis } from '@fragrance/testkit';
import { buildApp } from '../src/app.ts';
import { tokenVerifierFor } from '../src/auth/verify-token.ts';
import { createCatalogue } from '../src/catalogue/catalogue.ts';
import { McpConfig, resourceOf } from '../src/config.ts';
import { createRateLimiter } from '../src/rate-limit.ts';
import { jwksServer, mintToken, signingKey } from '../src/testing/tokens.ts';
import { APPLICABLE, EXTRA, NOT_APPLICABLE, NOT_APPLICABLE_CHECKS, REVISIONS, type Revision } from './conformance-scenarios.ts';

const conformanceBin = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');

/**
 * The server scenarios the suite requires for `revision` (its frozen set, read from the suite
 * itself so an upgrade cannot leave a stale copy here), plus EXTRA.
 */
export async function scenariosOf(revision: Revision): Promise<string[]> {
  const listing = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [conformanceBin, 'list', '--server', '--requirements', revision], (error, stdout) =>
      error ? reject(new Error(`conformance list failed: ${error.message}`, { cause: error })) : resolve(stdout),
    );
  });
  const section = listing.split('Server scenarios')[1]?.split(/\n\s*\n/)[0] ?? '';
  const required = [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
  if (required.length === 0) throw new Error(`the conformance suite lists no server scenarios for ${revision}`);
  return [...required, ...EXTRA[revision].filter((s) => !required.includes(s))];
}

export interface ScenarioResult {
  revision: Revision;
  scenario: string;
  applicable: boolean;
  reason?: string;
  /** The suite skipped it itself (e.g. session checks against a stateless server): only INFO checks. */
  skippedBySuite: string | undefined;
  passed: number;
  failed: number;
  warnings: number;
  failures: string[];
  /** Every check the suite recorded: id and status (SUCCESS, FAILURE, WARNING, INFO, SKIPPED). */
  checks: { id: string; status: string }[];
  /** Failed checks of this scenario that need a fixture we do not have (NOT_APPLICABLE_CHECKS), with the reason. */
  notApplicableChecks: string[];
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  description?: string;
}

/** One suite process for one scenario, its checks written under `outDir`. */
function runSuite(url: string, revision: Revision, scenario: string, outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [conformanceBin, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision, '--force', '-o', outDir],
      { stdio: ['ignore', 'ignore', 'ignore'], cwd: outDir },
    );
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

async function readChecks(outDir: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of await readdir(outDir, { recursive: true })) {
    if (!entry.endsWith('checks.json')) continue;
    checks.push(...(JSON.parse(await readFile(join(outDir, entry), 'utf8')) as Check[]));
  }
  return checks;
}

/** A scenario's result from its checks: failures of checks that need a fixture we lack do not count. */
function resultOf(revision: Revision, scenario: string, checks: Check[]): ScenarioResult {
  const failed = checks.filter((c) => c.status === 'FAILURE');
  const failures = failed.filter((c) => !(c.id in NOT_APPLICABLE_CHECKS)).map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`);
  const notApplicableChecks = failed.filter((c) => c.id in NOT_APPLICABLE_CHECKS).map((c) => `${c.id}: ${NOT_APPLICABLE_CHECKS[c.id]}`);
  const reason = APPLICABLE[revision].includes(scenario) ? undefined : NOT_APPLICABLE[scenario];
  const skipped = checks.length > 0 && checks.every((c) => c.status === 'INFO' || c.status === 'SKIPPED');
  return {
    revision,
    scenario,
    applicable: reason === undefined,
    skippedBySuite: skipped ? checks.map((c) => c.description ?? c.id).join('; ') : undefined,
    ...(reason ? { reason } : {}),
    passed: checks.filter((c) => c.status === 'SUCCESS').length,
    failed: failures.length,
    warnings: checks.filter((c) => c.status === 'WARNING').length,
    failures: checks.length === 0 ? ['no checks recorded'] : failures,
    checks: checks.map(({ id, status }) => ({ id, status })),
    notApplicableChecks,
    // A run that recorded nothing at all (crash, timeout before any check) counts as failed.
    ...(checks.length === 0 ? { failed: 1 } : {}),
  };
}

async function runScenario(url: string, revision: Revision, scenario: string): Promise<ScenarioResult> {
  const outDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    await runSuite(url, revision, scenario, outDir);
    return resultOf(revision, scenario, await readChecks(outDir));
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/**
 * Starts the real app with a valid token set on every request (the suite sends none); returns its
 * /mcp URL and how to stop it.
 */
export async function startWithValidToken(redisUrl: string, catalogueUrl = 'http://127.0.0.1:1') {
  const key = await signingKey('conformance-key');
  const jwks = await jwksServer([key]);
  const server = createServer();
  const base = await listen(server);
  const config = McpConfig.parse({ MCP_URL: base, OAUTH_ISSUER: 'http://issuer.conformance.test', JWKS_URL: jwks.url });
  const logger = createLogger('mcp-conformance', 'silent');
  // The service's own client (no offline queue): wait until it is ready before the first request.
  const redis = createRedisClient({ ...config, REDIS_URL: redisUrl }, logger, 'request-path');
  await waitForRedis(redis);
  const prefix = `conformance-${process.pid}:`;
  const catalogue = createCatalogue({ baseUrl: catalogueUrl, timeoutMs: 5_000 });
  const app = buildApp({
    config,
    logger,
    redis,
    verify: tokenVerifierFor(config, new RevocationStore(redis, { prefix })),
    rateLimiter: createRateLimiter({ redis, prefix, perMinute: 6_000, burst: 1_000 }),
    catalogue,
  });
  const token = await mintToken(key, {
    issuer: config.OAUTH_ISSUER,
    audience: resourceOf(config),
    sub: 'conformance',
    clientId: 'conformance',
    expiresIn: 3600,
  });
  server.on('request', (req, res) => {
    req.headers.authorization = `Bearer ${token}`;
    app(req, res);
  });
  return {
    url: `${base}/mcp`,
    stop: async () => {
      await Promise.all([close(server), close(jwks.server)]);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.unlink(...keys);
      await catalogue.close();
      redis.disconnect();
    },
  };
}

/**
 * Runs `scenarios` (default: every scenario of the revision) at `revision`'s wire, `parallel` at a
 * time (each is its own suite process, mostly waiting on its start-up), results in list order.
 */
export async function runConformance(url: string, revision: Revision, scenarios?: string[], parallel = 3): Promise<ScenarioResult[]> {
  const list = scenarios ?? (await scenariosOf(revision));
  const limit = pLimit(parallel);
  return Promise.all(list.map((scenario) => limit(() => runScenario(url, revision, scenario))));
}

const USAGE = 'usage: node scripts/conformance.ts [--revision 2025-11-25|2026-07-28 ...] [--json report.json] [--scenario name ...]';

/** The command line: revisions (default both), scenarios (default all), where to write the JSON report. */
function parseCommandLine(argv: string[]): { revisions: Revision[]; scenarios: string[] | undefined; jsonPath: string | undefined } {
  const { values } = parseArgs({
    // `npm run conformance -- …` may pass the `--` on.
    args: argv.filter((arg, i) => !(i === 0 && arg === '--')),
    options: {
      revision: { type: 'string', multiple: true },
      scenario: { type: 'string', multiple: true },
      json: { type: 'string' },
    },
  });
  const asked = values.revision ?? [];
  const unknown = asked.filter((r) => !(REVISIONS as readonly string[]).includes(r));
  if (unknown.length) throw new Error(`unknown --revision ${unknown.join(', ')}: use ${REVISIONS.join(' or ')}\n${USAGE}`);
  return {
    revisions: asked.length ? (asked as Revision[]) : [...REVISIONS],
    scenarios: values.scenario?.length ? values.scenario : undefined,
    jsonPath: values.json,
  };
}

/** One line per scenario, then its failures and the checks it could not run. */
function printResult(r: ScenarioResult): void {
  const verdict = !r.applicable ? 'n/a ' : r.skippedBySuite ? 'SKIP' : r.failed === 0 ? 'PASS' : 'FAIL';
  const note = r.reason ?? r.skippedBySuite;
  process.stdout.write(
    `${verdict} ${r.scenario.padEnd(46)} ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings${note ? `  (${note})` : ''}\n`,
  );
  if (!r.applicable) return;
  for (const f of r.failures) process.stdout.write(`       ${f}\n`);
  for (const c of r.notApplicableChecks) process.stdout.write(`       n/a check ${c}\n`);
}

/** Redis (else the shared local test instance) and, when set, a real catalogue for the tools (no scenario needs one). */
const ConformanceEnv = z.object({ REDIS_URL: z.string().min(1).optional(), CATALOGUE_SERVICE_URL: httpUrl().optional() });

async function main(): Promise<void> {
  const { revisions, scenarios, jsonPath } = parseCommandLine(process.argv.slice(2));
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment, once
  const env = parseConfig(ConformanceEnv, process.env);
  const target = await startWithValidToken(env.REDIS_URL ?? (await startLocalRedis()), env.CATALOGUE_SERVICE_URL);
  try {
    const results: ScenarioResult[] = [];
    for (const revision of revisions) {
      process.stdout.write(`# MCP ${revision}\n`);
      for (const r of await runConformance(target.url, revision, scenarios)) {
        results.push(r);
        printResult(r);
      }
    }
    if (jsonPath) await writeFile(jsonPath, JSON.stringify(results, null, 2));
    process.exitCode = results.some((r) => r.applicable && r.failed > 0) ? 1 : 0;
  } finally {
    await target.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
