import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyCommand, haproxyServers } from './control.ts';
import { haproxyConfig } from './haproxy.ts';

let haproxyBin = '';
const children: ChildProcess[] = [];
const servers: Server[] = [];

beforeAll(() => {
  const found = spawnSync('bash', ['-c', 'command -v haproxy || PATH=$PATH:/usr/sbin command -v haproxy'], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error('haproxy is missing: npm run test:slow installs it (bash infra/haproxy.sh ensure)');
  haproxyBin = found.stdout.trim();
});
afterAll(() => {
  children.forEach((c) => c.kill('SIGKILL'));
  servers.forEach((s) => s.close());
});

/** An instance that serves every request, and whose readiness answers 503 while `slowChecks.on`. */
async function instance(name: string, slowChecks: { on: boolean }): Promise<number> {
  const port = await freePort();
  const server = createServer((req, res) => {
    if (req.url !== '/health/ready') return void res.end(name);
    res.statusCode = slowChecks.on ? 503 : 200;
    res.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return port;
}

// The chaos bench's rolling restarts at load 20-30: one instance drained for its restart, the
// other's readiness checks timing out (a loaded machine), so HAProxy saw no server and answered
// 503 "No server is available" for a second or two although the instance served requests.
describe('haproxyConfig when every instance fails its checks', () => {
  it('keeps sending to the instances that still answer (the last-resort servers) instead of 503', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haproxy-checks-'));
    const slowChecks = { on: false };
    const [a, b] = await Promise.all([instance('a', slowChecks), instance('b', slowChecks)]);
    const frontendPort = await freePort();
    const adminSocket = join(dir, 'admin.sock');
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(
      file,
      haproxyConfig({
        adminSocket,
        checkIntervalMs: 200,
        backends: [
          {
            name: 'svc',
            frontendPort,
            check: '/health/ready',
            servers: [
              { name: 'svc-1', port: a },
              { name: 'svc-2', port: b },
            ],
          },
        ],
      }),
    );
    const check = spawnSync(haproxyBin, ['-c', '-f', file], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    children.push(spawn(haproxyBin, ['-db', '-f', file], { stdio: 'ignore' }));
    const status = async (server: string) =>
      (await haproxyServers(adminSocket).catch(() => new Map<string, { status: string }>())).get(server)?.status;
    await expect.poll(() => status('svc/svc-2'), { timeout: 10_000, interval: 100 }).toBe('UP');

    await haproxyCommand(adminSocket, 'set server svc/svc-1 state drain');
    slowChecks.on = true;
    await expect.poll(() => status('svc/svc-2'), { timeout: 10_000, interval: 100 }).toBe('DOWN');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`http://127.0.0.1:${frontendPort}/`).then(async (r) => `${r.status} ${await r.text()}`, String),
      ),
    );
    expect(answers.filter((s) => !/^200 [ab]$/.test(s))).toEqual([]);
  });
});
