import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyServers } from './control.ts';
import { haproxyConfig } from './haproxy.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let haproxyBin = '';

beforeAll(() => {
  // Debian's haproxy, installed by the bootstrap (npm run test:slow runs infra/haproxy.sh ensure).
  const found = spawnSync('bash', ['-c', 'command -v haproxy || PATH=$PATH:/usr/sbin command -v haproxy'], { cwd: ROOT, encoding: 'utf8' });
  if (found.status !== 0) throw new Error('haproxy is missing: npm run test:slow installs it (bash infra/haproxy.sh ensure)');
  haproxyBin = found.stdout.trim();
});

function instance(name: string): Promise<{ server: Server; port: number }> {
  return freePort().then(
    (port) =>
      new Promise((resolve) => {
        const server = createServer((req, res) => res.end(req.url === '/health/ready' ? 'ok' : name));
        server.listen(port, '127.0.0.1', () => resolve({ server, port }));
      }),
  );
}

describe('haproxyConfig', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

  it('is valid HAProxy and keeps answering GETs from the survivor when an instance dies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
    const [a, b] = await Promise.all([instance('a'), instance('b')]);
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
              { name: 'svc-1', port: a.port },
              { name: 'svc-2', port: b.port },
            ],
          },
        ],
      }),
    );
    const check = spawnSync(haproxyBin, ['-c', '-f', file], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);

    const proxy = spawn(haproxyBin, ['-db', '-f', file], { stdio: 'ignore' });
    children.push(proxy);
    const url = `http://127.0.0.1:${frontendPort}/`;
    const seen = new Set<string>();
    const answer = async () => {
      const body = await fetch(url).then(
        (r) => r.text(),
        () => '',
      );
      if (body) seen.add(body);
      return seen;
    };
    await expect.poll(answer, { timeout: 5_000, interval: 50 }).toEqual(new Set(['a', 'b'])); // round robin over both, health checks passing

    // The instance vanishes (port closed) before HAProxy's checks notice: connection failures
    // are retried on the other instance, so no client request fails.
    a.server.closeAllConnections();
    a.server.close();
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(url).then((r) => `${r.status} ${r.statusText}`, String)));
    expect(answers.filter((s) => s !== '200 OK')).toEqual([]);
    await expect
      .poll(async () => (await haproxyServers(adminSocket)).get('svc/svc-1')?.status, { timeout: 5_000, interval: 100 })
      .toBe('DOWN');
    b.server.close();
  });

  it('sets its own request id on every request (a client value replaced) and retries only read-only POSTs, under that id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
    const adminSocket = join(dir, 'admin.sock');
    // Both instances die (socket cut, nothing answered) on the first attempt of each id and
    // answer its repeat with the ids they saw: the retry of a request lands on the other one.
    const seen: string[] = [];
    const attempted = new Set<string>();
    const dying = () =>
      freePort().then(
        (port) =>
          new Promise<{ server: Server; port: number }>((resolve) => {
            const server = createServer((req, res) => {
              if (req.url === '/health/ready') return void res.end('ok');
              const id = String(req.headers['x-edge-request-id']);
              seen.push(id);
              req.resume();
              req.on('end', () => {
                if (!attempted.has(id)) {
                  attempted.add(id);
                  req.socket.destroy();
                } else res.end(id);
              });
            });
            server.listen(port, '127.0.0.1', () => resolve({ server, port }));
          }),
      );
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
            requestIdHeader: 'X-Edge-Request-Id',
            servers: [
              { name: 'edge-1', port: a.port },
              { name: 'edge-2', port: b.port },
            ],
          },
        ],
      }),
    );
    const check = spawnSync(haproxyBin, ['-c', '-f', file], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const proxy = spawn(haproxyBin, ['-db', '-f', file], { stdio: 'ignore' });
    children.push(proxy);
    const up = async () =>
      [...(await haproxyServers(adminSocket).catch(() => new Map<string, { status: string }>()))].filter(
        ([, server]) => server.status === 'UP',
      ).length;
    await expect.poll(up, { timeout: 10_000, interval: 100 }).toBe(2); // both instances seen up (rise 2 at 200 ms)
    const post = (path: string) =>
      fetch(`http://127.0.0.1:${frontendPort}${path}`, {
        method: 'POST',
        headers: { 'x-edge-request-id': 'chosen-by-client', 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      }).then(async (r) => ({ status: r.status, body: await r.text() }));

    const mcp = await post('/mcp');
    expect(mcp.status).toBe(200);
    expect(mcp.body).toMatch(/^[0-9a-f-]{36}$/); // HAProxy's id, not the client's
    expect(seen).toEqual([mcp.body, mcp.body]); // the retry carried the first attempt's id
    // A token POST the instance may have acted on is never replayed.
    expect((await post('/oauth/token')).status).toBe(502);
    expect(seen).toHaveLength(3);
    expect(seen).not.toContain('chosen-by-client');
    a.server.close();
    b.server.close();
  });
});
