// Runs the @modelcontextprotocol/conformance server scenarios of MCP 2025-11-25 against this
// MCP server. The suite sends no bearer token, so a small local proxy adds a valid one (signed
// by a throw-away key whose JWKS this script serves); everything behind the proxy is the real
// app: Origin check, token verification, revocation lookup, rate limit, tools.
//
//   node scripts/conformance.ts [--json report.json] [--scenario name ...]
//
// Redis comes from REDIS_URL, else the shared local test instance (127.0.0.1:6390).
// CATALOGUE_SERVICE_URL, when set, lets the tools reach a real catalogue (no scenario needs it).
import { spawn } from 'node:child_process';
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
import { createCatalogueClient } from '../src/catalogue/client.ts';
import { McpConfig, resourceOf } from '../src/config.ts';
import { createRateLimiter } from '../src/rate-limit.ts';
import { close, jwksServer, listen, mintToken, signingKey } from '../src/test-helpers.ts';

/**
 * Scenarios of the 2025-11-25 server requirement set that exercise features this read-only
 * catalogue server deliberately does not have: each names the fixture tool, prompt or resource
 * of the suite's reference "everything" server, or a capability we do not declare.
 */
export const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'no logging capability: tools are quick reads with nothing to log to the client',
  'completion-complete': 'no completions capability: no prompts and no templated arguments to complete',
  'tools-call-simple-text': 'calls the fixture tool test_simple_text, which a catalogue server does not have',
  'tools-call-image': 'calls the fixture tool test_image_content; the catalogue has no images',
  'tools-call-audio': 'calls the fixture tool test_audio_content; the catalogue has no audio',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging; no logging capability',
  'tools-call-error': 'calls the fixture tool test_error_handling (our tool errors are covered by our own tests)',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress; our tools answer at once',
  'tools-call-sampling': 'calls the fixture tool test_sampling; a read-only data server never asks the client to sample',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation; we never elicit input',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults; we never elicit input',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums; we never elicit input',
  'server-sse-multiple-streams': 'needs sessions and SSE streams; this server is stateless with JSON responses',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe': 'no resources.subscribe capability: catalogue records change only on ingest',
  'resources-unsubscribe': 'no resources.subscribe capability',
  'prompts-list': 'no prompts capability',
  'prompts-get-simple': 'no prompts capability (fixture prompt test_simple_prompt)',
  'prompts-get-with-args': 'no prompts capability (fixture prompt test_prompt_with_arguments)',
  'prompts-get-embedded-resource': 'no prompts capability (fixture prompt test_prompt_with_embedded_resource)',
  'prompts-get-with-image': 'no prompts capability (fixture prompt test_prompt_with_image)',
  'json-schema-2020-12': 'calls the fixture tool json_schema_2020_12_tool',
  'server-sse-polling': 'calls the fixture tool test_reconnection over a session SSE stream; stateless JSON server',
};

/** Scenarios this server must pass (the rest are listed in NOT_APPLICABLE with the reason). */
export const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'dns-rebinding-protection',
  'server-session-lifecycle',
];

const REQUIRED_2025_11_25 = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];
/** Listed for 2025-11-25 by the suite but outside the frozen requirement set; run them too. */
const EXTRA = ['server-session-lifecycle', 'json-schema-2020-12', 'server-sse-polling'];

export interface ScenarioResult {
  scenario: string;
  applicable: boolean;
  reason?: string;
  /** The suite skipped it itself (e.g. session checks against a stateless server): only INFO checks. */
  skippedBySuite: string | undefined;
  passed: number;
  failed: number;
  warnings: number;
  failures: string[];
}

const conformanceBin = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');

async function runScenario(url: string, scenario: string): Promise<ScenarioResult> {
  const outDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [conformanceBin, 'server', '--url', url, '--scenario', scenario, '--spec-version', '2025-11-25', '--force', '-o', outDir],
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
    const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? 'failed'}`);
    const reason = NOT_APPLICABLE[scenario];
    const skipped = checks.length > 0 && checks.every((c) => c.status === 'INFO' || c.status === 'SKIPPED');
    return {
      scenario,
      applicable: reason === undefined,
      skippedBySuite: skipped ? checks.map((c) => c.description ?? c.id).join('; ') : undefined,
      ...(reason ? { reason } : {}),
      passed: checks.filter((c) => c.status === 'SUCCESS').length,
      failed: failures.length,
      warnings: checks.filter((c) => c.status === 'WARNING').length,
      failures: checks.length === 0 ? ['no checks recorded'] : failures,
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
  const catalogue = createCatalogueClient({ baseUrl: catalogueUrl, timeoutMs: 5_000 });
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

export async function runConformance(url: string, scenarios = [...REQUIRED_2025_11_25, ...EXTRA]): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const scenario of scenarios) results.push(await runScenario(url, scenario));
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf('--json');
  const jsonPath = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const only = args.flatMap((a, i) => (args[i - 1] === '--scenario' ? [a] : []));
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
  const redisUrl = process.env.REDIS_URL ?? (await startLocalRedis());
  // eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
  const target = await startBehindTokenProxy(redisUrl, process.env.CATALOGUE_SERVICE_URL);
  try {
    const results = await runConformance(target.url, only.length ? only : undefined);
    for (const r of results) {
      const verdict = !r.applicable ? 'n/a ' : r.skippedBySuite ? 'SKIP' : r.failed === 0 ? 'PASS' : 'FAIL';
      const note = r.reason ?? r.skippedBySuite;
      process.stdout.write(
        `${verdict} ${r.scenario.padEnd(32)} ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings${note ? `  (${note})` : ''}\n`,
      );
      if (r.applicable) for (const f of r.failures) process.stdout.write(`       ${f}\n`);
    }
    if (jsonPath) await writeFile(jsonPath, JSON.stringify(results, null, 2));
    const applicableFailed = results.filter((r) => r.applicable && r.failed > 0);
    process.exitCode = applicableFailed.length > 0 ? 1 : 0;
  } finally {
    await target.stop();
  }
}
