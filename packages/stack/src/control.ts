// Small request/response channels over unix sockets: the cluster's control socket (one JSON
// request per connection, progress lines back, the last line `{"done":…}`), and HAProxy's
// runtime API (one command per connection, its text reply).
import { chmodSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';

export type ControlRequest = { command: 'status' } | { command: 'restart'; service: string };

export interface ControlReply {
  done: boolean;
  ok?: boolean;
  /** A progress note (restart) or the final error. */
  message?: string;
  /** The status payload. */
  data?: unknown;
}

/** Handles one request; `progress` streams a line back to the caller. */
export type ControlHandler = (request: ControlRequest, progress: (message: string) => void) => Promise<unknown>;

function parseRequest(line: string): ControlRequest {
  const value = JSON.parse(line) as Partial<{ command: string; service: string }>;
  if (value.command === 'status') return { command: 'status' };
  if (value.command === 'restart' && typeof value.service === 'string') return { command: 'restart', service: value.service };
  throw new Error(`unknown control request ${line.slice(0, 200)}`);
}

/** Listens on `path` (owner-only); a stale socket file from a dead cluster is replaced. */
export async function serveControl(path: string, handler: ControlHandler): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    let buffered = '';
    const send = (reply: ControlReply) => socket.write(`${JSON.stringify(reply)}\n`);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      const line = buffered.slice(0, newline);
      buffered = '';
      void (async () => {
        try {
          const data = await handler(parseRequest(line), (message) => send({ done: false, message }));
          send({ done: true, ok: true, data });
        } catch (error) {
          send({ done: true, ok: false, message: error instanceof Error ? error.message : String(error) });
        }
        socket.end();
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  chmodSync(path, 0o600);
  return server;
}

/** Sends one request; `onProgress` sees each progress line; resolves with the final reply's data. */
export async function sendControl(path: string, request: ControlRequest, onProgress?: (message: string) => void): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let buffered = '';
    let settled = false;
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('error', (error) => {
      settled = true;
      reject(new Error(`no cluster answers on ${path}: ${error.message}`));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const reply = JSON.parse(line) as ControlReply;
        if (!reply.done) {
          if (reply.message) onProgress?.(reply.message);
          continue;
        }
        settled = true;
        if (reply.ok) resolve(reply.data);
        else reject(new Error(reply.message ?? 'the cluster refused the request'));
      }
    });
    socket.on('close', () => {
      if (!settled) reject(new Error('the cluster closed the control connection without an answer'));
    });
  });
}

/** One HAProxy runtime API command (e.g. `set server gateway/gateway-1 state drain`); its reply text. */
export async function haproxyCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let reply = '';
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(reply.trim()));
  });
}

/** Current state of every server: `backend/server` → status (UP, DOWN, MAINT, DRAIN, …) and current sessions. */
export async function haproxyServers(socketPath: string): Promise<Map<string, { status: string; sessions: number }>> {
  const csv = await haproxyCommand(socketPath, 'show stat');
  const [header, ...rows] = csv.split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const servers = new Map<string, { status: string; sessions: number }>();
  for (const row of rows) {
    const cells = row.split(',');
    const svname = cells[at('svname')];
    if (!svname || svname === 'FRONTEND' || svname === 'BACKEND') continue;
    servers.set(`${cells[at('pxname')] ?? ''}/${svname}`, { status: cells[at('status')] ?? '', sessions: Number(cells[at('scur')] ?? 0) });
  }
  return servers;
}
