import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@fragrance/testkit';
import { describe, expect, it } from 'vitest';
import { acquireStackLock, readStackLock, StackRunningError } from './stack-lock.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'stack-lock-'));

describe('acquireStackLock', () => {
  it('refuses while the holder is alive, naming it, and leaves its lock untouched', async () => {
    const file = join(dir(), 'stack.lock');
    const release = await acquireStackLock({ file, kind: 'start', ports: [] });
    const before = readFileSync(file, 'utf8');
    await expect(acquireStackLock({ file, kind: 'cluster', ports: [] })).rejects.toThrow(
      new RegExp(`a stack is already running \\(npm start, pid ${process.pid}`),
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
    release();
    expect(existsSync(file)).toBe(false);
  });

  it('takes over a lock whose process is gone', async () => {
    const file = join(dir(), 'stack.lock');
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    writeFileSync(file, JSON.stringify({ pid: gone.pid, kind: 'start', startedAt: 'earlier' }));
    const release = await acquireStackLock({ file, kind: 'cluster', ports: [] });
    expect(readStackLock(file)).toMatchObject({ pid: process.pid, kind: 'cluster' });
    release();
  });

  it('refuses when a port it needs is taken, naming the port, and writes no lock', async () => {
    const file = join(dir(), 'stack.lock');
    const port = await freePort();
    const other = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    try {
      const free = await freePort();
      const attempt = acquireStackLock({
        file,
        kind: 'start',
        ports: [
          { port: free, what: 'edge' },
          { port, what: 'Redis' },
        ],
      });
      await expect(attempt).rejects.toBeInstanceOf(StackRunningError);
      await expect(attempt).rejects.toThrow(`port ${port} (Redis) already in use`);
      expect(existsSync(file)).toBe(false);
    } finally {
      other.close();
    }
  });
});
