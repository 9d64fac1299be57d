import type { z } from 'zod';
import { checkedAgainst, type Structured, type ToolAnswer } from './run.ts';

type ToolArgs = Parameters<typeof checkedAgainst>[1];

/**
 * The body of a tool that is one data API endpoint seen through MCP: its arguments are checked
 * with the endpoint's own query contract (a violation names the argument, as the API would), the
 * endpoint gets the typed query the contract makes of them, and `text` renders its answer.
 */
export function forwarded<C extends z.ZodType, O extends z.ZodRawShape, A extends ToolArgs>(
  contract: C,
  endpoint: (query: z.output<C>) => Promise<unknown>,
  text: (answer: Structured<O>, args: A) => string,
): (args: A) => Promise<ToolAnswer<O>> {
  return async (args) => ({
    structured: await endpoint(checkedAgainst(contract, args)),
    text: (answer) => text(answer, args),
  });
}
