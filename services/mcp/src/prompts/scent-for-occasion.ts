import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { completeConcentration, completeLastItem, completeNames, completeOccasion, completeSeason } from '../completions.ts';
import { currentRequest } from '../request-context.ts';
import { listOf, userMessage } from './text.ts';

/** Built once per process (see request-context.ts); completers act for the request being served. */
const ScentForOccasionArgs = z.object({
  occasion: completable(z.string().describe('daily, office, leisure, sport, evening, date night or formal'), completeOccasion),
  season: completable(z.string().describe('spring, summer, autumn or winter'), completeSeason).optional(),
  liked_notes: completable(z.string().describe('Notes the user likes, comma-separated, e.g. "bergamot, vetiver".'), (typed) =>
    completeLastItem(typed, (item) => completeNames(currentRequest(), 'note', item)),
  ).optional(),
  disliked_notes: completable(z.string().describe('Notes to avoid, comma-separated.'), (typed) =>
    completeLastItem(typed, (item) => completeNames(currentRequest(), 'note', item)),
  ).optional(),
  accords: completable(z.string().describe('Accords wanted, comma-separated, e.g. "woody, citrus".'), (typed) =>
    completeLastItem(typed, (item) => completeNames(currentRequest(), 'accord', item)),
  ).optional(),
  concentration: completable(z.string().describe('Eau de Parfum, Eau de Toilette, …'), completeConcentration).optional(),
  brand: completable(z.string().describe('Only this brand.'), (typed) => completeNames(currentRequest(), 'brand', typed)).optional(),
  perfumer: completable(z.string().describe('Only fragrances composed by this perfumer.'), (typed) =>
    completeNames(currentRequest(), 'perfumer', typed),
  ).optional(),
});

/** scent_for_occasion: a search plan for an occasion and season, with liked and disliked notes. */
export function registerScentForOccasionPrompt(server: McpServer): void {
  server.registerPrompt(
    'scent_for_occasion',
    {
      title: 'Find a scent for an occasion',
      description: 'Recommends fragrances for an occasion (and season), favouring notes the user likes and avoiding those they dislike.',
      argsSchema: ScentForOccasionArgs,
    },
    (args) => {
      const search: Record<string, unknown> = {
        occasion: [args.occasion.trim().toLowerCase()],
        ...(args.season ? { season: [args.season.trim().toLowerCase()] } : {}),
        ...(args.liked_notes ? { note: listOf(args.liked_notes).slice(0, 2) } : {}),
        ...(args.disliked_notes ? { exclude_note: listOf(args.disliked_notes) } : {}),
        ...(args.accords ? { accord: listOf(args.accords) } : {}),
        ...(args.concentration ? { concentration: args.concentration } : {}),
        ...(args.brand ? { brand: args.brand } : {}),
        ...(args.perfumer ? { perfumer: args.perfumer } : {}),
        sort: 'rating',
        votes_min: 20,
        limit: 10,
      };
      const when = `${args.occasion}${args.season ? ` in ${args.season}` : ''}`;
      return {
        description: `Fragrances for ${when}`,
        messages: [
          userMessage(
            [
              `I am looking for a fragrance to wear for ${when}.`,
              args.liked_notes ? `I like these notes: ${listOf(args.liked_notes).join(', ')}.` : '',
              args.disliked_notes ? `I dislike these notes, so avoid them: ${listOf(args.disliked_notes).join(', ')}.` : '',
              args.accords ? `I would like these accords: ${listOf(args.accords).join(', ')}.` : '',
              args.concentration ? `Concentration: ${args.concentration}.` : '',
              args.brand ? `Only from ${args.brand}.` : '',
              args.perfumer ? `Composed by ${args.perfumer}.` : '',
              '',
              'Use the fragrance catalogue tools: start with search_fragrances with these arguments:',
              JSON.stringify(search),
              'If it finds fewer than three, drop the liked notes (keep the exclusions) and search again; ' +
                'use list_notes or suggest to check a note name the catalogue does not know. ' +
                'Then call compare_fragrances on your best three ids and recommend one or two, saying which liked notes each has, ' +
                'how it is rated, and whether it is available in Australia.',
            ]
              .filter((line, i, all) => line !== '' || all[i - 1] !== '')
              .join('\n'),
          ),
        ],
      };
    },
  );
}
