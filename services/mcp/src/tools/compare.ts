import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AuAvailability, Concentration, foldKey, FragranceDetail, Notes, Rating } from '@fragrance/contracts';
import { CatalogueRejectedError, CatalogueUnavailableError } from '../catalogue/catalogue.ts';
import { registerReadTool } from './read-tool.ts';
import type { ToolContext, ToolRunner } from './run.ts';

export const MIN_COMPARED = 2;
export const MAX_COMPARED = 5;

export const CompareInput = {
  ids: z
    .array(z.uuid())
    .min(MIN_COMPARED)
    .max(MAX_COMPARED)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, { error: 'must not repeat an id' })
    .describe(`${MIN_COMPARED} to ${MAX_COMPARED} different fragrance ids (UUIDs from search results) to compare side by side.`),
};

const Compared = z.object({
  id: z.uuid(),
  name: z.string(),
  brand: z.string(),
  concentration: Concentration,
  year_released: z.number().int().nullable(),
  rating: Rating,
  notes: Notes,
  accords: z.array(z.string()).describe('All its accords, strongest first.'),
  distinct_accords: z.array(z.string()).describe('Its accords that none of the other compared fragrances has.'),
  distinct_notes: z.array(z.string()).describe('Its notes (any stage) that none of the others has.'),
  au_availability: AuAvailability,
});

const ByStage = z.object({ top: z.array(z.string()), heart: z.array(z.string()), base: z.array(z.string()) });

export const CompareOutput = {
  fragrances: z.array(Compared).describe('In the order the ids were given.'),
  shared_accords: z.array(z.string()).describe('Accords every compared fragrance has.'),
  shared_notes: ByStage.describe('Notes every compared fragrance has at the same stage.'),
  shared_notes_any_stage: z.array(z.string()).describe('Notes every compared fragrance has, at any stage.'),
  best_rated: z.uuid().nullable().describe('The id with the highest average rating (null when none is rated).'),
  available_in_au: z.array(z.uuid()).describe('Ids seen at Australian retailers.'),
};
type CompareResult = z.infer<z.ZodObject<typeof CompareOutput>>;

const STAGES = ['top', 'heart', 'base'] as const;

/** Values (in the first one's spelling) present in every list, compared folded (case, accents, punctuation). */
function common(lists: readonly (readonly string[])[]): string[] {
  const [first = [], ...rest] = lists;
  const others = rest.map((list) => new Set(list.map(foldKey)));
  return [...new Map(first.map((v) => [foldKey(v), v])).entries()].filter(([key]) => others.every((set) => set.has(key))).map(([, v]) => v);
}

/** Values of lists[index] that no other list has. */
function only(lists: readonly (readonly string[])[], index: number): string[] {
  const others = new Set(lists.filter((_, i) => i !== index).flatMap((list) => list.map(foldKey)));
  return [...new Map((lists[index] ?? []).map((v) => [foldKey(v), v])).entries()].filter(([key]) => !others.has(key)).map(([, v]) => v);
}

const allNotes = (f: FragranceDetail) => [...f.notes.top, ...f.notes.heart, ...f.notes.base];

/** Side by side from the full records (a pure function of them, tested on its own). */
export function compareFragrances(records: readonly FragranceDetail[]): CompareResult {
  const accords = records.map((f) => f.accords);
  const notes = records.map(allNotes);
  const rated = records.filter((f) => f.rating.average !== null);
  const best = rated.reduce<FragranceDetail | undefined>(
    (top, f) => (top === undefined || (f.rating.average ?? 0) > (top.rating.average ?? 0) ? f : top),
    undefined,
  );
  return {
    fragrances: records.map((f, i) => ({
      id: f.id,
      name: f.name,
      brand: f.brand,
      concentration: f.concentration,
      year_released: f.year_released,
      rating: f.rating,
      notes: f.notes,
      accords: f.accords,
      distinct_accords: only(accords, i),
      distinct_notes: only(notes, i),
      au_availability: f.au_availability,
    })),
    shared_accords: common(accords),
    shared_notes: {
      top: common(records.map((f) => f.notes.top)),
      heart: common(records.map((f) => f.notes.heart)),
      base: common(records.map((f) => f.notes.base)),
    },
    shared_notes_any_stage: common(notes),
    best_rated: best?.id ?? null,
    available_in_au: records.filter((f) => f.au_availability.available).map((f) => f.id),
  };
}

function compareText(r: CompareResult): string {
  const rating = (f: CompareResult['fragrances'][number]) =>
    f.rating.average === null ? 'unrated' : `${f.rating.average.toFixed(1)}/5 (${f.rating.count} votes)`;
  return [
    `Comparing ${r.fragrances.length} fragrances.`,
    ...r.fragrances.flatMap((f) => [
      `${f.name} by ${f.brand} (${f.concentration}${f.year_released === null ? '' : `, ${f.year_released}`}), ${rating(f)}; ` +
        (f.au_availability.available ? 'available in Australia' : 'not seen in Australia'),
      ...STAGES.map((stage) => `  ${stage}: ${f.notes[stage].join(', ') || 'n/a'}`),
      `  only this one: accords ${f.distinct_accords.join(', ') || 'none'}; notes ${f.distinct_notes.join(', ') || 'none'}`,
    ]),
    `Shared accords: ${r.shared_accords.join(', ') || 'none'}. Shared notes: ${r.shared_notes_any_stage.join(', ') || 'none'}.`,
  ].join('\n');
}

/** One full record; an unknown id is named in the error, so the assistant knows which to drop. */
async function fetchRecord(ctx: ToolContext, id: string): Promise<FragranceDetail> {
  let body: unknown;
  try {
    body = await ctx.catalogue.fragrance(id);
  } catch (error) {
    if (error instanceof CatalogueRejectedError && error.status === 404)
      throw new CatalogueRejectedError(404, `no fragrance has the id ${id}.`);
    throw error;
  }
  const parsed = FragranceDetail.safeParse(body);
  if (!parsed.success)
    throw new CatalogueUnavailableError(`The catalogue answered with an unexpected shape: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** compare_fragrances: 2-5 records side by side (one catalogue read per id, in parallel). */
export function registerCompareTool(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'compare_fragrances',
    title: 'Compare fragrances',
    description:
      `${MIN_COMPARED} to ${MAX_COMPARED} fragrances side by side: notes by stage (top, heart, base), the accords and notes ` +
      'they share and those only one has, ratings (and the best rated), and availability at Australian retailers.',
    input: CompareInput,
    output: CompareOutput,
    view: 'comparison',
    answer: async ({ ids }) => {
      const records = await Promise.all(ids.map((id) => fetchRecord(ctx, id)));
      return { structured: compareFragrances(records), text: compareText };
    },
  });
}
