import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ViewName } from '../apps/html.ts';
import { viewOf } from '../apps/views.ts';
import { READ_ONLY, type ToolAnswer, type ToolRunner } from './run.ts';
import { toolSchema } from './tool-schema.ts';

/** A tool as this server declares each one: read-only, with input and output shapes and, for MCP Apps hosts, a view. */
export interface ReadTool<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  /** The annotation's title, when shorter than `title`. */
  shortTitle?: string;
  description: string;
  input: I;
  output: O;
  view?: ViewName;
  /** The tool's body, run by the request's ToolRunner (errors become tool results, each call is logged). */
  answer: (args: z.output<z.ZodObject<I>>) => Promise<ToolAnswer<O>>;
}

/** Registers a ReadTool: through ext-apps' registerAppTool when it has a view, else as a plain tool. */
export function registerReadTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  run: ToolRunner,
  tool: ReadTool<I, O>,
): void {
  const config = {
    title: tool.title,
    description: tool.description,
    inputSchema: toolSchema(tool.input),
    outputSchema: toolSchema(tool.output),
    annotations: { title: tool.shortTitle ?? tool.title, ...READ_ONLY },
  };
  const handler = (args: z.output<z.ZodObject<I>>) => run(tool.name, tool.output, () => tool.answer(args));
  if (tool.view) registerAppTool(server, tool.name, { ...config, _meta: viewOf(tool.view) }, handler);
  else server.registerTool(tool.name, config, handler);
}
