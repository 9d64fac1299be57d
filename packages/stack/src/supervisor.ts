// Keeps a stack's long-running processes up: each is restarted with exponential backoff when it
// exits unasked, with a log line; `stopAll` stops them in reverse start order (SIGTERM, then
// SIGKILL after a grace period) and nothing restarts after it.
//
// Why not a process manager library: pm2 runs one global daemon per user that outlives the
// terminal and is shared by every stack (a second stack's `pm2 delete`/name clash reaches the
// first, the opposite of "never harm a stack you did not start"); forever-monitor and similar are
// unmaintained. What a stack needs here — spawn, watch `exit`, back off, stop in order — is
// node:child_process plus a timer, so this module is that and no more.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ProcessSpec {
  /** Unique within the supervisor, e.g. `gateway-2`; prefixes every output line. */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** SIGTERM → SIGKILL grace when stopping (default 15 s: services drain within it). */
  stopTimeoutMs?: number;
}

export interface SupervisorOptions {
  /** Every line a child prints, and the supervisor's own notes (`name` is `supervisor` then). */
  onLine?: (name: string, line: string) => void;
  /** First restart delay; doubles per crash up to maxBackoffMs (default 250 ms → 10 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A process that stayed up this long has its backoff reset (default 30 s). */
  stableAfterMs?: number;
}

export interface ProcessState {
  name: string;
  pid: number | undefined;
  /** Times it was started again after exiting unasked. */
  restarts: number;
  running: boolean;
}

interface Entry {
  spec: ProcessSpec;
  child: ChildProcess | undefined;
  restarts: number;
  backoffMs: number;
  startedAt: number;
  /** Set while the supervisor itself stops this process (stop, restart or stopAll). */
  stopping: boolean;
  timer: NodeJS.Timeout | undefined;
}

export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private readonly onLine: (name: string, line: string) => void;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly stableAfterMs: number;
  private closed = false;

  constructor(options: SupervisorOptions = {}) {
    this.onLine = options.onLine ?? ((name, line) => void process.stdout.write(`${name} | ${line}\n`));
    this.initialBackoffMs = options.initialBackoffMs ?? 250;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.stableAfterMs = options.stableAfterMs ?? 30_000;
  }

  /** Starts a process and keeps it up until `stop`/`stopAll`. */
  add(spec: ProcessSpec): void {
    if (this.closed) throw new Error('the supervisor is stopping');
    if (this.entries.has(spec.name)) throw new Error(`a process named ${spec.name} is already supervised`);
    const entry: Entry = {
      spec,
      child: undefined,
      restarts: 0,
      backoffMs: this.initialBackoffMs,
      startedAt: 0,
      stopping: false,
      timer: undefined,
    };
    this.entries.set(spec.name, entry);
    this.launch(entry);
  }

  list(): ProcessState[] {
    return [...this.entries.values()].map((entry) => ({
      name: entry.spec.name,
      pid: entry.child?.pid,
      restarts: entry.restarts,
      running: this.isRunning(entry),
    }));
  }

  pid(name: string): number | undefined {
    return this.entries.get(name)?.child?.pid;
  }

  /** Stops one process gracefully and starts it again at once (no backoff): a planned restart. */
  async restart(name: string): Promise<void> {
    const entry = this.entry(name);
    await this.terminate(entry);
    if (this.closed) return;
    entry.stopping = false;
    entry.backoffMs = this.initialBackoffMs;
    this.launch(entry);
  }

  /** Stops one process for good. */
  async stop(name: string): Promise<void> {
    const entry = this.entry(name);
    await this.terminate(entry);
    this.entries.delete(name);
  }

  /** Stops every process, last started first; nothing is restarted afterwards. */
  async stopAll(): Promise<void> {
    this.closed = true;
    for (const entry of [...this.entries.values()].reverse()) await this.terminate(entry);
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no supervised process named ${name}`);
    return entry;
  }

  private isRunning(entry: Entry): boolean {
    return entry.child?.exitCode === null && entry.child.signalCode === null;
  }

  private launch(entry: Entry): void {
    const { spec } = entry;
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    entry.child = child;
    entry.startedAt = Date.now();
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) this.onLine(spec.name, line);
      });
    }
    child.on('error', (error) => this.onLine('supervisor', `${spec.name} could not start: ${error.message}`));
    child.on('exit', (code, signal) => {
      if (entry.child !== child || entry.stopping || this.closed) return;
      // A crash right after a long, healthy run is not a crash loop: start over from the first delay.
      if (Date.now() - entry.startedAt >= this.stableAfterMs) entry.backoffMs = this.initialBackoffMs;
      const delay = entry.backoffMs;
      entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxBackoffMs);
      this.onLine('supervisor', `${spec.name} (pid ${child.pid ?? '?'}) exited (${code ?? signal}); restarting in ${delay} ms`);
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        if (entry.stopping || this.closed) return;
        entry.restarts += 1;
        this.launch(entry);
      }, delay);
    });
  }

  private async terminate(entry: Entry): Promise<void> {
    entry.stopping = true;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    const child = entry.child;
    if (!child || !this.isRunning(entry)) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), entry.spec.stopTimeoutMs ?? 15_000);
    await exited;
    clearTimeout(killer);
  }
}
