import { AsyncLocalStorage } from 'node:async_hooks';
import type { ToolContext } from './tools/run.ts';

/**
 * The MCP request being served, for what is built once per process yet acts for a request: the
 * prompts' argument schemas and their completers. The SDK server is built per request, and
 * rebuilding those zod schemas was most of its construction cost (CPU profile, docs/mcp.md).
 */
const current = new AsyncLocalStorage<ToolContext>();

/** Runs `serve` (one /mcp request, everything it awaits included) as the request of `ctx`. */
export const runAsRequest = <T>(ctx: ToolContext, serve: () => T): T => current.run(ctx, serve);

/** The request being served; throws outside runAsRequest (a wiring mistake, never a caller's). */
export function currentRequest(): ToolContext {
  const ctx = current.getStore();
  if (!ctx) throw new Error('No MCP request is being served here: wrap the handling in runAsRequest.');
  return ctx;
}
