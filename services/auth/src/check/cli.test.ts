import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { authTest as test, type Credentials } from '../testing/app.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

/** Runs the check CLI as an operator would, the password on stdin. */
function runCheck(issuer: string, person: Credentials): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, '--issuer', issuer, '--email', person.email], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(`${person.password}\n`);
  return new Promise((resolve) => child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr })));
}

describe('the auth check CLI', () => {
  test('passes every step against a working server', async ({ auth, person }) => {
    const { exitCode, stdout, stderr } = await runCheck(auth.issuer, person);
    expect(stdout).not.toContain('FAIL');
    expect(stdout).toMatch(/^ok {3}register a public client \(201, client_id, the redirect URI, no secret\) {2}\(status 201, /m);
    expect(stdout).toMatch(/^ok {3}revoke, then refresh fails with invalid_grant$/m);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
  });

  test('fails the registration step, and stops there, when the server refuses to register', async ({ person, startAuth }) => {
    const closed = await startAuth({ registrationLimitPerHour: 0 });
    const { exitCode, stdout } = await runCheck(closed.issuer, person);
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^FAIL register a public client .*status 429.*registration_rate_limited/);
    expect(lines.slice(0, -1).every((line) => line.startsWith('ok   metadata '))).toBe(true);
    expect(exitCode).toBe(1);
  });
});
