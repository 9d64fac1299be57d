// One local stack at a time: `npm start` and `npm run cluster` take this lock before touching
// anything (no infra started, no key replaced), so a second start refuses instead of
// reusing, revoking or stopping what the first one runs.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';

export interface StackLockOwner {
  pid: number;
  /** `start` or `cluster`: which command holds the lock. */
  kind: string;
  startedAt: string;
}

export class StackRunningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StackRunningError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else, still alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner recorded in `file` if that process is still alive, else undefined. */
export function readStackLock(file: string): StackLockOwner | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const owner = JSON.parse(text) as StackLockOwner;
    return Number.isInteger(owner.pid) && alive(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Whether something accepts TCP connections on loopback `port`. */
export async function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(true); // something holds the port but does not answer: still not ours to take
    });
    socket.once('error', () => resolve(false));
  });
}

export interface AcquireOptions {
  file: string;
  kind: string;
  /** Ports this stack will bind: each must be free (named when it is not). */
  ports: { port: number; what: string }[];
}

/**
 * Takes the stack lock, or throws StackRunningError naming the stack (pid, command) or the port
 * that is in the way. Checks only: it starts, stops and writes nothing else. Returns `release`.
 */
export async function acquireStackLock(options: AcquireOptions): Promise<() => void> {
  const holder = readStackLock(options.file);
  if (holder) {
    throw new StackRunningError(
      `a stack is already running (npm ${holder.kind === 'start' ? 'start' : `run ${holder.kind}`}, pid ${holder.pid}, since ${holder.startedAt}); ` +
        `use it, or stop it with Ctrl-C in its terminal (or kill ${holder.pid}) before starting another`,
    );
  }
  const busy: string[] = [];
  for (const { port, what } of options.ports) if (await portInUse(port)) busy.push(`${port} (${what})`);
  if (busy.length > 0) {
    throw new StackRunningError(
      `port${busy.length > 1 ? 's' : ''} ${busy.join(', ')} already in use by a process this command did not start; ` +
        'stop it first (npm run infra:stop stops the infra that npm run infra:start brought up)',
    );
  }
  const owner: StackLockOwner = { pid: process.pid, kind: options.kind, startedAt: new Date().toISOString() };
  // A stale file (its pid is gone) is replaced; `wx` makes two starts racing for it exclusive.
  rmSync(options.file, { force: true });
  try {
    writeFileSync(options.file, JSON.stringify(owner), { flag: 'wx' });
  } catch {
    throw new StackRunningError(`another start took the stack lock ${options.file} at the same moment`);
  }
  return () => {
    if (readStackLock(options.file)?.pid === process.pid) rmSync(options.file, { force: true });
  };
}
