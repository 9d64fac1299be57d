import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router } from 'express';

/**
 * Whether this instance still takes new work. `serve()` flips it when SIGTERM arrives, before it
 * stops accepting, so `/health/ready` answers 503 at once and a load balancer moves traffic away.
 */
export class Lifecycle {
  #draining = false;
  get draining(): boolean {
    return this.#draining;
  }
  startDraining(): void {
    this.#draining = true;
  }
}

/** Resolves when a dependency answers, rejects when it does not. */
export type DependencyCheck = () => Promise<void>;
export type DependencyStatus = 'up' | 'down';

/** Runs every check in parallel, each bounded by timeoutMs, and names the ones that are down. */
export async function checkDependencies(
  checks: Readonly<Record<string, DependencyCheck>>,
  timeoutMs: number,
): Promise<{ healthy: boolean; dependencies: Record<string, DependencyStatus> }> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(
    names.map((name) => {
      const check = checks[name]!;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      });
      return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
    }),
  );
  const dependencies = Object.fromEntries(names.map((name, i) => [name, results[i]?.status === 'fulfilled' ? 'up' : 'down'] as const));
  return { healthy: Object.values(dependencies).every((s) => s === 'up'), dependencies };
}

export interface ProbeOptions {
  lifecycle: Lifecycle;
  /** The dependencies without which this instance cannot serve a request (readiness fails while one is down). */
  required: Readonly<Record<string, DependencyCheck>>;
  /** Longest wait for one dependency check. */
  timeoutMs: number;
}

export interface ProbeReply {
  status: number;
  body: { status: 'ok' | 'draining' | 'unavailable'; dependencies?: Record<string, DependencyStatus> };
}

/**
 * The two probes every service answers:
 * - `live`: the process runs its event loop (never looks at dependencies: restarting an instance
 *   because Redis is away would not bring Redis back);
 * - `ready`: 503 while draining or while a required dependency is down, else 200.
 */
export async function probe(kind: 'live' | 'ready', { lifecycle, required, timeoutMs }: ProbeOptions): Promise<ProbeReply> {
  if (kind === 'live') return { status: 200, body: { status: 'ok' } };
  if (lifecycle.draining) return { status: 503, body: { status: 'draining' } };
  const { healthy, dependencies } = await checkDependencies(required, timeoutMs);
  return { status: healthy ? 200 : 503, body: { status: healthy ? 'ok' : 'unavailable', dependencies } };
}

const PROBE_PATHS = { '/health/live': 'live', '/health/ready': 'ready' } as const;

/** `GET /health/live` and `GET /health/ready` for an Express app. */
export function probeRoutes(options: ProbeOptions): Router {
  const router = Router();
  for (const [path, kind] of Object.entries(PROBE_PATHS)) {
    router.get(path, async (_req, res) => {
      const reply = await probe(kind, options);
      res.status(reply.status).set('cache-control', 'no-store').json(reply.body);
    });
  }
  return router;
}

/**
 * The same probes for a plain `node:http` server (the worker's health port). Returns false when
 * the request is not a probe, so the caller answers it.
 */
export function handleProbe(req: IncomingMessage, res: ServerResponse, options: ProbeOptions): boolean {
  const path = (req.url ?? '').split('?')[0] ?? '';
  const kind = req.method === 'GET' ? (PROBE_PATHS as Record<string, 'live' | 'ready' | undefined>)[path] : undefined;
  if (!kind) return false;
  void probe(kind, options).then((reply) => {
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify(reply.body));
  });
  return true;
}
