import { afterEach, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '@fragrance/testkit';
import { Supervisor } from './supervisor.ts';

// A child that serves its pid over HTTP, like a service would serve /health.
const server = (port: number) => [
  '-e',
  `require('node:http').createServer((q, s) => s.end(String(process.pid))).listen(${port}, '127.0.0.1');`,
];

/**
 * The pid the child on `port` answers with, once it answers (and, with `not`, is another than
 * that). Only a pid counts: on a busy machine another process may briefly take the freed port.
 */
async function answer(port: number, not?: number): Promise<number> {
  return waitFor(
    async () => {
      const pid = Number(await (await fetch(`http://127.0.0.1:${port}/`)).text());
      return Number.isInteger(pid) && pid > 0 && pid !== not ? pid : undefined;
    },
    { timeoutMs: 10_000, description: `an answer on port ${port}` },
  );
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let supervisor: Supervisor | undefined;
afterEach(async () => supervisor?.stopAll());

describe('Supervisor', () => {
  it('restarts a killed process with a log line, and stopAll stops it for good', async () => {
    const port = await freePort();
    const lines: string[] = [];
    supervisor = new Supervisor({ onLine: (name, line) => lines.push(`${name}: ${line}`), initialBackoffMs: 100 });
    supervisor.add({ name: 'svc-1', command: process.execPath, args: server(port) });
    const first = await answer(port);
    expect(first).toBe(supervisor.pid('svc-1'));

    process.kill(first, 'SIGKILL');
    const second = await answer(port, first);
    expect(second).toBe(supervisor.pid('svc-1'));
    expect(lines.some((l) => /svc-1 \(pid \d+\) exited \(SIGKILL\); restarting in 100 ms/.test(l))).toBe(true);
    expect(supervisor.list()).toEqual([{ name: 'svc-1', pid: second, restarts: 1, running: true }]);

    await supervisor.stopAll();
    // A restart is announced by a line (written when the process exits, before stopAll returns):
    // none after the first means nothing comes back.
    expect(lines.filter((l) => l.includes('restarting in'))).toHaveLength(1);
    expect(supervisor.list()).toEqual([{ name: 'svc-1', pid: second, restarts: 1, running: false }]);
    expect(alive(second)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });

  it('backs off exponentially while a process keeps crashing', async () => {
    const lines: string[] = [];
    supervisor = new Supervisor({ onLine: (_name, line) => lines.push(line), initialBackoffMs: 50, maxBackoffMs: 200 });
    supervisor.add({ name: 'crasher', command: process.execPath, args: ['-e', 'process.exit(3)'] });
    await expect
      .poll(() => lines.filter((l) => l.includes('exited (3)')).length, { timeout: 10_000, interval: 20 })
      .toBeGreaterThanOrEqual(4);
    const delays = lines.filter((l) => l.includes('exited (3)')).map((l) => Number(/in (\d+) ms/.exec(l)?.[1]));
    expect(delays.slice(0, 4)).toEqual([50, 100, 200, 200]);
  });

  it('restart() replaces a process gracefully, without a crash line', async () => {
    const port = await freePort();
    const lines: string[] = [];
    supervisor = new Supervisor({ onLine: (_name, line) => lines.push(line) });
    supervisor.add({ name: 'svc', command: process.execPath, args: server(port) });
    const first = await answer(port);
    await supervisor.restart('svc');
    expect(alive(first)).toBe(false);
    expect(await answer(port)).not.toBe(first);
    expect(lines.filter((l) => l.includes('exited'))).toEqual([]);
  });
});
