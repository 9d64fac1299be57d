// Runs the @modelcontextprotocol/conformance server scenarios of MCP 2025-11-25 and 2026-07-28
// against this MCP server. The suite sends no bearer token, so a small local proxy adds a valid one (signed
// by a throw-away key whose JWKS this script serves); everything behind the proxy is the real
// app: Origin check, token verification, revocation lookup, rate limit, tools.
//
//   node scripts/conformance.ts [--revision 2025-11-25|2026-07-28 ...] [--json report.json] [--scenario name ...]
//
// Without --revision both revisions run; the exit code is 1 when an applicable scenario fails.
//
// Redis comes from REDIS_URL, else the shared local test instance (127.0.0.1:6390).
// CATALOGUE_SERVICE_URL, when set, lets the tools reach a real catalogue (no scenario needs it).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { startLocalRedis } from '@fragrance/testkit';
import { buildApp } from '../src/app.ts';
import { tokenVerifierFor } from '../src/auth/verify-token.ts';
import { createCatalogue } from '../src/catalogue/catalogue.ts';
import { McpConfig, resourceOf } from '../src/config.ts';
import { createRateLimiter } from '../src/rate-limit.ts';
import { close, jwksServer, listen, mintToken, signingKey } from '../src/test-helpers.ts';

/** The protocol revisions this server negotiates and the suite has a frozen requirement set for. */
export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type Revision = (typeof REVISIONS)[number];

/**
 * Scenarios of the suite's requirement sets that exercise features this read-only catalogue
 * server deliberately does not have: each names the fixture tool, prompt or resource of the
 * suite's reference "everything" server, or what a stateless server cannot do. One list for both
 * revisions (a scenario keeps its name across revisions); a scenario in APPLICABLE for a revision
 * is applicable there whatever this list says.
 */
export const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete': 'completes an argument of the fixture prompt test_prompt_with_arguments (ours: test/surface, e2e, interop)',
  'tools-call-simple-text': 'calls the fixture tool test_simple_text, which a catalogue server does not have',
  'tools-call-image': 'calls the fixture tool test_image_content; the catalogue has no images',
  'tools-call-audio': 'calls the fixture tool test_audio_content; the catalogue has no audio',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging (our tools send no log messages)',
  'tools-call-error': 'calls the fixture tool test_error_handling (our tool errors are covered by our own tests)',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress; our tools answer at once',
  'tools-call-sampling': 'calls the fixture tool test_sampling; a read-only data server never asks the client to sample',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation; we never elicit input',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults; we never elicit input',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums; we never elicit input',
  'server-sse-multiple-streams':
    '2025-11-25 only (passes on 2026-07-28): opens its streams within a session, and a stateless server issues no session id (the suite warns, checks nothing)',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe':
    'no resources.subscribe: a stateless server has no stream to send resources/updated on (GET /mcp is 405); records change only on ingest',
  'resources-unsubscribe': 'no resources.subscribe (see resources-subscribe)',
  'prompts-get-simple': 'gets the fixture prompt test_simple_prompt (ours: test/surface.test.ts)',
  'prompts-get-with-args': 'gets the fixture prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the fixture prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the fixture prompt test_prompt_with_image',
  'json-schema-2020-12': 'calls the fixture tool json_schema_2020_12_tool',
  'server-sse-polling': 'calls the fixture tool test_reconnection, which closes its SSE stream mid-call (and needs a session)',

  'input-required-result-basic-elicitation':
    'calls the fixture tool test_input_required_result_elicitation; we never need input from the client',
  'input-required-result-basic-sampling': 'calls the fixture tool test_input_required_result_sampling; we never ask the client to sample',
  'input-required-result-basic-list-roots': 'calls the fixture tool test_input_required_result_list_roots; we never ask for roots',
  'input-required-result-request-state': 'calls the fixture tool test_input_required_result_request_state; we never need input',
  'input-required-result-multiple-input-requests': 'calls the fixture tool test_input_required_result_multiple_inputs; we never need input',
  'input-required-result-multi-round': 'calls a fixture tool that asks for input over several rounds; we never need input',
  'input-required-result-missing-input-response': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
  'input-required-result-non-tool-request': 'gets the fixture prompt test_input_required_result_prompt; we never need input',
  'input-required-result-result-type': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
  'input-required-result-tampered-state': 'needs a fixture tool that returns requestState; we never need input',
  'input-required-result-capability-check': 'calls the fixture tool test_input_required_result_capabilities; we never need input',
  'input-required-result-ignore-extra-params': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
  'input-required-result-validate-input': 'calls the fixture tool test_input_required_result_elicitation; we never need input',
};

/**
 * Single checks of an applicable scenario that need a fixture of the reference server; the suite
 * itself reports them as "Not testable". They are shown but do not fail the run.
 */
export const NOT_APPLICABLE_CHECKS: Record<string, string> = {
  'sep-2575-server-rejects-undeclared-capability': 'needs the fixture diagnostic tool test_missing_capability',
  'sep-2575-missing-capability-http-400': 'needs the fixture diagnostic tool test_missing_capability',
  'sep-2575-http-server-no-independent-requests-on-stream': 'needs the fixture tool test_streaming_elicitation; we never elicit',
  'sep-2575-server-no-log-without-loglevel': 'needs the fixture tool test_logging_tool (our tools send no log messages)',
};

/** Scenarios each revision's server must pass (the rest are listed in NOT_APPLICABLE with the reason). */
export const APPLICABLE: Record<Revision, string[]> = {
  '2025-11-25': [
    'server-initialize',
    'ping',
    'logging-set-level',
    'tools-list',
    'resources-list',
    'prompts-list',
    'dns-rebinding-protection',
    'server-session-lifecycle',
  ],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'resources-list',
    'prompts-list',
    'sep-2164-resource-not-found',
    'dns-rebinding-protection',
    'caching',
    'input-required-result-unsupported-methods',
    'server-sse-multiple-streams',
  ],
};

/** Scenarios outside a frozen requirement set that the suite lists for the revision: run them too. */
const EXTRA: Record<Revision, string[]> = {
  '2025-11-25': ['server-session-lifecycle', 'json-schema-2020-12', 'server-sse-polling'],
  '2026-07-28': ['json-schema-2020-12'],
};

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

async function runScenario(url: string, revision: Revision, scenario: string): Promise<ScenarioResult> {
  const outDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [conformanceBin, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision, '--force', '-o', outDir],
        {
          stdio: ['ignore', 'ignore', 'ignore'],
          cwd: outDir,
        },
      );
      child.on('error', reject);
      child.on('exit', () => resolve());
    });
    const checks: { id: string; status: string; errorMessage?: string; description?: string }[] = [];
    for (const entry of await readdir(outDir, { recursive: true })) {
      if (!entry.endsWith('checks.json')) continue;
      checks.push(...(JSON.parse(await readFile(join(outDir, entry), 'utf8')) as typeof checks));
    }
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
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** Starts the real app behind a token-adding proxy; returns the proxy's /mcp URL. */
export async function startBehindTokenProxy(redisUrl: string, catalogueUrl = 'http://127.0.0.1:1') {
  const key = await signingKey('conformance-key');
  const jwks = await jwksServer([key]);
  const proxy = createServer();
  const proxyBase = await listen(proxy);
  const config = McpConfig.parse({ MCP_URL: proxyBase, OAUTH_ISSUER: 'http://issuer.conformance.test', JWKS_URL: jwks.url });
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
  const upstream = createServer(app);
  const upstreamBase = new URL(await listen(upstream));
  const token = await mintToken(key, {
    issuer: config.OAUTH_ISSUER,
    audience: resourceOf(config),
    sub: 'conformance',
    clientId: 'conformance',
    expiresIn: 3600,
  });
  proxy.on('request', (req, res) => {
    const forward = httpRequest(
      {
        host: upstreamBase.hostname,
        port: upstreamBase.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return {
    url: `${proxyBase}/mcp`,
    stop: async () => {
      await Promise.all([close(proxy), close(upstream), close(jwks.server)]);
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
  const results: ScenarioResult[] = new Array<ScenarioResult>(list.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < list.length; i = next++) results[i] = await runScenario(url, revision, list[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, list.length) }, worker));
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf('--json');
  const jsonPath = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const only = args.flatMap((a, i) => (args[i - 1] === '--scenario' ? [a] : []));
  const asked = args.flatMap((a, i) => (args[i - 1] === '--revision' ? [a] : []));
  const unknown = asked.filter((r) => !(REVISIONS as readonly string[]).includes(r));
  if (unknown.length) throw new Error(`unknown --revision ${unknown.join(', ')}: use ${REVISIONS.join(' or ')}`);
  const revisions = asked.length ? (asked as Revision[]) : [...REVISIONS];
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
  const redisUrl = process.env.REDIS_URL ?? (await startLocalRedis());
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
  const target = await startBehindTokenProxy(redisUrl, process.env.CATALOGUE_SERVICE_URL);
  try {
    const results: ScenarioResult[] = [];
    for (const revision of revisions) {
      process.stdout.write(`# MCP ${revision}\n`);
      for (const r of await runConformance(target.url, revision, only.length ? only : undefined)) {
        results.push(r);
        const verdict = !r.applicable ? 'n/a ' : r.skippedBySuite ? 'SKIP' : r.failed === 0 ? 'PASS' : 'FAIL';
        const note = r.reason ?? r.skippedBySuite;
        process.stdout.write(
          `${verdict} ${r.scenario.padEnd(46)} ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings${note ? `  (${note})` : ''}\n`,
        );
        if (r.applicable) for (const f of r.failures) process.stdout.write(`       ${f}\n`);
        if (r.applicable) for (const c of r.notApplicableChecks) process.stdout.write(`       n/a check ${c}\n`);
      }
    }
    if (jsonPath) await writeFile(jsonPath, JSON.stringify(results, null, 2));
    const applicableFailed = results.filter((r) => r.applicable && r.failed > 0);
    process.exitCode = applicableFailed.length > 0 ? 1 : 0;
  } finally {
    await target.stop();
  }
}
