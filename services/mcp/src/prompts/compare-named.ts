import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completeFragrances, completeLastItem, resolveFragrance } from '../completions.ts';
import { MAX_COMPARED, MIN_COMPARED } from '../tools/compare.ts';
import { currentRequest } from '../request-context.ts';
import type { ToolContext } from '../tools/run.ts';
import { listOf, userMessage } from './text.ts';

/** Built once per process (see request-context.ts); completers act for the request being served. */
const CompareNamedArgs = z.object({
  fragrances: completable(
    z.string().describe(`${MIN_COMPARED} to ${MAX_COMPARED} fragrance names, comma-separated; each completes as it is typed.`),
    (typed) => completeLastItem(typed, (item) => completeFragrances(currentRequest(), item)),
  ),
});

/** compare_named_fragrances: names (each completable) resolved to ids, then compare_fragrances. */
export function registerCompareNamedPrompt(server: McpServer, ctx: ToolContext): void {
  server.registerPrompt(
    'compare_named_fragrances',
    {
      title: 'Compare fragrances by name',
      description: `Compares ${MIN_COMPARED} to ${MAX_COMPARED} fragrances named by the user: notes by stage, shared and distinct accords, ratings and Australian availability.`,
      argsSchema: CompareNamedArgs,
    },
    async (args) => {
      const names = listOf(args.fragrances).slice(0, MAX_COMPARED);
      const found = await Promise.all(names.map((name) => resolveFragrance(ctx, name)));
      const ids = found.flatMap((f) => (f ? [f.id] : []));
      const missing = names.filter((_, i) => found[i] === undefined);
      const lines = [
        `Compare these fragrances for me: ${names.join('; ')}.`,
        '',
        ...found.flatMap((f, i) => (f ? [`- "${names[i] ?? ''}" is ${f.name} by ${f.brand}, id ${f.id}.`] : [])),
        ...(missing.length > 0
          ? [`Not found by name yet (use search_fragrances or suggest to find their ids): ${missing.join('; ')}.`]
          : []),
        `Call compare_fragrances with {"ids": ${JSON.stringify(ids)}}${missing.length > 0 ? ' plus the ids you find' : ''}` +
          ` (${MIN_COMPARED} to ${MAX_COMPARED} ids), then summarise how they differ by stage, which accords they share, which is best rated, and which are sold in Australia.`,
      ];
      return { description: `Compare ${names.join(', ')}`, messages: [userMessage(lines.join('\n'))] };
    },
  );
}
