import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormUser, freePort, testRedis, type TestRedis } from '@fragrance/testkit';
import { registerClient } from './testing/flow.ts';
import { startAuth, type Harness } from './testing/harness.ts';

// @modelcontextprotocol/conformance (0.2 line) `authorization` against this server: the
// metadata scenario and the authorization-code-grant scenario, with the sign-in and consent
// the suite asks a person to do driven headlessly through our pages.
const CLI = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));

let t: TestRedis;
let auth: Harness;
let out: string;
const user = { email: 'conformance@example.com', password: 'conformance long password' };

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

function collectChecks(dir: string): Check[] {
  const checks: Check[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path)) {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry === 'checks.json') checks.push(...(JSON.parse(readFileSync(full, 'utf8')) as Check[]));
    }
  };
  walk(dir);
  return checks;
}

beforeAll(async () => {
  t = await testRedis('auth-conf');
  auth = await startAuth(t.redis, t.prefix);
  await auth.users.create(user.email, user.password);
  out = mkdtempSync(join(tmpdir(), 'conformance-'));
});
afterAll(async () => {
  await auth.close();
  await t.cleanup();
  rmSync(out, { recursive: true, force: true });
});

describe('MCP conformance suite, authorization server scenarios', () => {
  it('passes every check of authorization-server-metadata-endpoint and authorization-code-grant', async () => {
    const port = await freePort();
    const clientId = await registerClient(auth.issuer, [`http://127.0.0.1:${port}/callback`], 'MCP conformance');
    const child = spawn(
      process.execPath,
      [
        CLI,
        'authorization',
        '--url',
        auth.issuer,
        '--client-id',
        clientId,
        '--port',
        String(port),
        '--resource',
        auth.resource,
        '--output-dir',
        out,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let drove: Promise<void> | undefined;
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(stdout)?.[1];
      if (url && !drove) {
        // The person's part: sign in, allow, and let the browser land on the callback.
        drove = (async () => {
          const final = await new FormUser(auth.issuer).authorize(url, user);
          if (!final.location) throw new Error(`sign-in did not redirect: ${final.status}`);
          await fetch(final.location);
        })();
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    await drove;
    const checks = collectChecks(out);
    const summary = checks.map((c) => `${c.status} ${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ''}`).join('\n');
    expect(drove, `the suite never printed an authorization URL:\n${stdout}\n${stderr}`).toBeDefined();
    expect(checks.length, `no checks were written:\n${stdout}\n${stderr}`).toBeGreaterThan(0);
    expect(checks.map((c) => c.id)).toEqual(expect.arrayContaining(['authorization-server-metadata', 'authorization-code-grant']));
    expect(
      checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING' || c.status === 'SKIPPED'),
      summary,
    ).toEqual([]);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
  }, 120_000);
});
