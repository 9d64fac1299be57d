import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { FormUser, freePort } from '@fragrance/testkit';
import { authTest } from './testing/app.ts';
import { registerClient } from './testing/flow.ts';

// @modelcontextprotocol/conformance (0.2 line) `authorization` against this server: the
// metadata scenario and the authorization-code-grant scenario, with the sign-in and consent
// the suite asks a person to do driven headlessly through our pages.
const CLI = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));

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

/** A directory for the suite's results, removed after the test. */
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
const test = authTest.extend('out', ({}, { onCleanup }) => {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'));
  onCleanup(() => rmSync(out, { recursive: true, force: true }));
  return out;
});

describe('MCP conformance suite, authorization server scenarios', () => {
  test('passes every check of authorization-server-metadata-endpoint and authorization-code-grant', async ({ auth, person, out }) => {
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
          const final = await new FormUser(auth.issuer).authorize(url, person);
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
