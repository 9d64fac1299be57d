import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completeFragrances, completeNames, resolveFragrance } from '../completions.ts';
import { currentRequest } from '../request-context.ts';
import type { ToolContext } from '../tools/run.ts';
import { userMessage } from './text.ts';

/** Built once per process (see request-context.ts); completers act for the request being served. */
const FindAlternativesArgs = z.object({
  fragrance: completable(z.string().describe('The fragrance to find alternatives to, e.g. "Terre d\'Hermès (Hermès)".'), (typed) =>
    completeFragrances(currentRequest(), typed),
  ),
  avoid_brand: completable(z.string().describe('Leave out this brand (e.g. the original’s).'), (typed) =>
    completeNames(currentRequest(), 'brand', typed),
  ).optional(),
  available_in_au: completable(z.string().describe('"yes" to keep only fragrances sold in Australia.'), (typed) =>
    ['yes', 'no'].filter((v) => v.startsWith(typed.trim().toLowerCase())),
  ).optional(),
});

/** find_alternatives: look-alikes of a named fragrance (resolved to its id here), optionally from other brands or available in AU. */
export function registerFindAlternativesPrompt(server: McpServer, ctx: ToolContext): void {
  server.registerPrompt(
    'find_alternatives',
    {
      title: 'Find alternatives to a fragrance',
      description:
        'Finds fragrances that smell like a named one (for example cheaper, from another brand, or sold in Australia) and compares them.',
      argsSchema: FindAlternativesArgs,
    },
    async (args) => {
      const found = await resolveFragrance(ctx, args.fragrance);
      const inAu = args.available_in_au?.trim().toLowerCase() === 'yes';
      const named = found ? `${found.name} by ${found.brand}` : args.fragrance;
      const lines = [
        `I like ${named} and want alternatives to it${args.avoid_brand ? ` that are not by ${args.avoid_brand}` : ''}${inAu ? ', available in Australia' : ''}.`,
        '',
        found
          ? `In the catalogue it is id ${found.id}. Call similar_fragrances with {"id": "${found.id}", "limit": 20}.`
          : `Find it first with search_fragrances {"query": ${JSON.stringify(args.fragrance)}, "limit": 5} (or suggest), then call similar_fragrances with its id and limit 20.`,
        [
          args.avoid_brand ? `Drop results by ${args.avoid_brand}.` : '',
          inAu ? 'Keep only results with available_in_au true.' : '',
          `Then call compare_fragrances with the original and the best three remaining ids, and explain what each alternative shares with ${named} (accords and notes by stage), how it differs, and how it is rated.`,
        ]
          .filter(Boolean)
          .join(' '),
      ];
      return { description: `Alternatives to ${named}`, messages: [userMessage(lines.join('\n'))] };
    },
  );
}
