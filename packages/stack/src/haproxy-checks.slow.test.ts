import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
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

// The chaos bench's instance kills: a token refresh in flight on the killed gateway or auth
// instance was cut (502) and never retried, as every token POST. A refresh is safe to repeat
// (the auth service answers the repeat in the same grant); a code exchange is not.
describe('haproxyConfig with a retryable form POST', () => {
  it('replays a refresh-token grant cut by a dying instance, never a code exchange', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haproxy-form-'));
    const adminSocket = join(dir, 'admin.sock');
    // Each instance cuts the first attempt of every body it sees and answers its repeat.
    const attempted = new Set<string>();
    const dying = async () => {
      const port = await freePort();
      const server = createServer((req, res) => {
        if (req.url === '/health/ready') return void res.end('ok');
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          if (!attempted.has(body)) {
            attempted.add(body);
            req.socket.destroy();
          } else res.end(`again ${body}`);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return port;
    };
    const [a, b] = await Promise.all([dying(), dying()]);
    const frontendPort = await freePort();
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(
      file,
      haproxyConfig({
        adminSocket,
        checkIntervalMs: 200,
        backends: [
          {
            name: 'edge',
            frontendPort,
            check: '/health/ready',
            retryPostPaths: ['/mcp'],
            retryPostForm: { path: '/oauth/token', param: 'grant_type', value: 'refresh_token' },
            servers: [
              { name: 'edge-1', port: a },
              { name: 'edge-2', port: b },
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
    await expect.poll(() => status('edge/edge-2'), { timeout: 10_000, interval: 100 }).toBe('UP');
    await expect.poll(() => status('edge/edge-1'), { timeout: 10_000, interval: 100 }).toBe('UP');
    // One connection per request: a request failing on a reused client connection is closed
    // without an answer (the client may retry it), which is not what this test is about.
    const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
      new Promise<string>((resolve) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: frontendPort,
            path,
            method: 'POST',
            agent: false,
            headers: { 'content-type': type, connection: 'close' },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve(`${res.statusCode ?? 0} ${text}`));
          },
        );
        req.on('error', (error) => resolve(`no answer: ${error.message}`));
        req.end(body);
      });
    const answers = [
      await post('/oauth/token', 'grant_type=refresh_token&refresh_token=r1&client_id=c'),
      await post('/oauth/token', 'grant_type=authorization_code&code=c1&client_id=c'),
      await post('/oauth/register', 'grant_type=refresh_token&x=1'),
      await post('/mcp', '{"jsonrpc":"2.0","id":7}', 'application/json'),
    ];
    expect(answers[0]).toBe('200 again grant_type=refresh_token&refresh_token=r1&client_id=c');
    expect(answers.slice(1, 3).map((a) => a.slice(0, 3))).toEqual(['502', '502']);
    expect(answers[3]).toBe('200 again {"jsonrpc":"2.0","id":7}');
  });
});
