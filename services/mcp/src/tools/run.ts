import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Logger } from '@fragrance/http';
import type { Caller } from '../auth/verify-token.ts';
import type { FragranceClient } from '@fragrance/client';
import { CatalogueRejectedError, CatalogueUnavailableError } from '../catalogue/catalogue.ts';
import { toolCalls } from '../metrics.ts';
import { objectOf } from './tool-schema.ts';

/** Everything one MCP request's tools, resources, prompts and completions need: built per request (the transport is stateless). */
export interface ToolContext {
  /** The catalogue for this request (sends its request id): `createCatalogue(…).forRequest(requestId)`. */
  catalogue: FragranceClient;
  logger: Logger;
  caller: Caller;
  requestId: string;
}

/** Every tool of this server only reads the catalogue. */
export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export type Structured<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

/** What a tool body returns: the structured result (checked against the output schema) and its text rendering. */
export interface ToolAnswer<S extends z.ZodRawShape> {
  structured: unknown;
  text: (value: Structured<S>) => string;
}

export type ToolRunner = <S extends z.ZodRawShape>(tool: string, output: S, body: () => Promise<ToolAnswer<S>>) => Promise<CallToolResult>;

/**
 * Runs one tool: catalogue problems become tool results with isError (the assistant can fix
 * its arguments or retry), and each call is logged against the user and client of the token.
 */
export function createToolRunner(ctx: ToolContext): ToolRunner {
  return async (tool, output, body) => {
    const started = performance.now();
    const log = (outcome: 'ok' | 'rejected' | 'unavailable' | 'failed', extra: Record<string, unknown> = {}) => {
      toolCalls.inc({ tool, outcome });
      ctx.logger.info(
        {
          request_id: ctx.requestId,
          sub: ctx.caller.sub,
          client_id: ctx.caller.clientId,
          tool,
          outcome,
          duration_ms: Math.round(performance.now() - started),
          ...extra,
        },
        `mcp tool ${tool} ${outcome}`,
      );
    };
    try {
      const { structured, text } = await body();
      const parsed = objectOf(output).safeParse(structured);
      if (!parsed.success) {
        throw new CatalogueUnavailableError(`The catalogue answered with an unexpected shape: ${z.prettifyError(parsed.error)}`);
      }
      log('ok');
      return { content: [{ type: 'text', text: text(parsed.data) }], structuredContent: parsed.data };
    } catch (error) {
      if (error instanceof CatalogueRejectedError) {
        log('rejected', { status: error.status });
        const params = error.invalidParams.map((p) => `${p.name}: ${p.reason}`).join('; ');
        const message = error.status === 404 ? `Not found: ${error.message}` : `Invalid arguments: ${params || error.message}`;
        return { content: [{ type: 'text', text: message }], isError: true };
      }
      if (error instanceof CatalogueUnavailableError) {
        ctx.logger.error({ err: error, request_id: ctx.requestId, tool }, 'catalogue unavailable');
        log('unavailable');
        return {
          content: [
            { type: 'text', text: `The catalogue is temporarily unavailable; please retry in a moment (request id ${ctx.requestId}).` },
          ],
          isError: true,
        };
      }
      // A bug of ours: logged in full, shown without internals.
      ctx.logger.error({ err: error, request_id: ctx.requestId, tool }, 'tool failed');
      log('failed');
      return {
        content: [{ type: 'text', text: `Something went wrong on our side (request id ${ctx.requestId}).` }],
        isError: true,
      };
    }
  };
}

/** Tool arguments → the data API's query string values (lists comma-joined, numbers as text). */
export function toQueryStrings(
  args: Readonly<Record<string, string | number | boolean | readonly (string | number)[] | undefined>>,
): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    query[name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return query;
}

/**
 * Checks tool arguments as the data API would, with its own query contract (vocabulary, bounds,
 * paging rules) applied to their query-string form, and returns the typed query the contract
 * makes of them, to send. A violation becomes a rejected request, i.e. a tool result with
 * isError that names each bad argument.
 */
export function checkedAgainst<C extends z.ZodType>(contract: C, args: Parameters<typeof toQueryStrings>[0]): z.output<C> {
  const parsed = contract.safeParse(toQueryStrings(args));
  if (!parsed.success) {
    const invalid = parsed.error.issues.map((issue) => ({ name: issue.path.map(String).join('.') || 'arguments', reason: issue.message }));
    throw new CatalogueRejectedError(400, 'Invalid arguments.', 'invalid_parameter', invalid);
  }
  return parsed.data;
}
