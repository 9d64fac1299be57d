import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { startAuth, type Harness } from '../testing/harness.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const person = { email: 'checker@example.com', password: 'checker has a long password' };

/** Runs the check CLI as an operator would, the password on stdin. */
function runCheck(issuer: string): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, '--issuer', issuer, '--email', person.email], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(`${person.password}\n`);
  return new Promise((resolve) => child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr })));
}

describe('the auth check CLI', () => {
  let t: TestRedis;
  let auth: Harness;
  let closed: Harness;
  beforeAll(async () => {
    t = await testRedis('auth-check');
    auth = await startAuth(t.redis, `${t.prefix}open:`);
    await auth.users.create(person.email, person.password);
    closed = await startAuth(t.redis, `${t.prefix}closed:`, { registrationLimitPerHour: 0 });
  });
  afterAll(async () => {
    await auth?.close();
    await closed?.close();
    await t?.cleanup();
  });

  it('passes every step against a working server', async () => {
    const { exitCode, stdout, stderr } = await runCheck(auth.issuer);
    expect(stdout).not.toContain('FAIL');
    expect(stdout).toMatch(/^ok {3}register a public client \(201, client_id, the redirect URI, no secret\) {2}\(status 201, /m);
    expect(stdout).toMatch(/^ok {3}revoke, then refresh fails with invalid_grant$/m);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
  });

  it('fails the registration step, and stops there, when the server refuses to register', async () => {
    const { exitCode, stdout } = await runCheck(closed.issuer);
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^FAIL register a public client .*status 429.*registration_rate_limited/);
    expect(lines.slice(0, -1).every((line) => line.startsWith('ok   metadata '))).toBe(true);
    expect(exitCode).toBe(1);
  });
});
