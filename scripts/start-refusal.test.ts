// `npm start` while a stack runs: it must refuse before touching anything and leave the running
// stack as it was. The "running stack" here is a process we control holding the stack lock and
// serving on a port, so the test never needs (or disturbs) the default ports.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@fragrance/testkit';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const stacks: { kill: (s: NodeJS.Signals) => boolean }[] = [];
afterAll(() => stacks.forEach((s) => s.kill('SIGKILL')));

it('a second npm start against a running stack refuses, naming it, and leaves it serving', async () => {
  const local = mkdtempSync(join(tmpdir(), 'stack-local-'));
  const port = await freePort();
  const running = spawn(process.execPath, [
    '-e',
    `require('node:http').createServer((q, s) => s.end('first')).listen(${port}, '127.0.0.1')`,
  ]);
  stacks.push(running);
  const lock = join(local, 'stack.lock');
  writeFileSync(lock, JSON.stringify({ pid: running.pid, kind: 'start', startedAt: '2026-01-01T00:00:00.000Z' }));
  await expect
    .poll(
      () =>
        fetch(`http://127.0.0.1:${port}/`).then(
          () => true,
          () => false,
        ),
      { timeout: 5_000, interval: 50, message: 'the stand-in stack never served' },
    )
    .toBe(true);

  const second = spawnSync(process.execPath, ['scripts/start.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', FRAGRANCE_LOCAL_DIR: local },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(second.status, second.stdout + second.stderr).toBe(1);
  expect(second.stdout).toContain(`not starting: a stack is already running (npm start, pid ${running.pid}`);
  // It got no further: no infra step, no key, no "ready".
  expect(second.stdout).not.toMatch(/starting Elasticsearch|starting Redis|ready: |demo API key/);
  expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('first');
  expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: running.pid });
});
