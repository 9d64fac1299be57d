import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  BrandDetail,
  BrandList,
  BrandSlugParams,
  BrandsQuery,
  MAX_LIMIT,
  MAX_RESULT_WINDOW,
  TermList,
  TermsQuery,
} from '@fragrance/contracts';
import { registerReadTool } from './read-tool.ts';
import { forwarded } from './forwarded.ts';
import type { ToolContext, ToolRunner } from './run.ts';

const paging = {
  search: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Only names matching this text (every word, the last as a prefix; case-, accent- and typo-tolerant), best match first.'),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(20).describe(`Page size, 1..${MAX_LIMIT}; default 20.`),
  offset: z
    .number()
    .int()
    .min(0)
    .max(MAX_RESULT_WINDOW - 1)
    .optional()
    .describe(`Items to skip; default 0. offset + limit may not exceed ${MAX_RESULT_WINDOW}.`),
};

export const BrandsInput = {
  ...paging,
  country: z.string().optional().describe('Only brands from this country (ISO 3166-1 alpha-2, case-insensitive), e.g. FR.'),
};
export const BrandsOutput = BrandList.shape;
export const BrandInput = {
  slug: z.string().min(1).max(200).describe('Brand slug from list_brands or suggest, e.g. maison-francis-kurkdjian.'),
};
export const BrandOutput = BrandDetail.shape;
export const TermsInput = paging;
export const TermsOutput = TermList.shape;

const TERMS = [
  { kind: 'notes', tool: 'list_notes', title: 'List notes', filter: 'note' },
  { kind: 'accords', tool: 'list_accords', title: 'List accords', filter: 'accord' },
  { kind: 'perfumers', tool: 'list_perfumers', title: 'List perfumers', filter: 'perfumer' },
] as const;

const pageLine = (r: { total: number; offset: number; data: unknown[] }) =>
  r.data.length === 0 ? `None of ${r.total} on this page.` : `${r.total} in all; showing ${r.offset + 1}-${r.offset + r.data.length}:`;

/** Browsing the catalogue's brands (list and one brand's profile), notes, accords and perfumers. */
export function registerBrowseTools(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'list_brands',
    title: 'List brands',
    description:
      'Brands of the catalogue, most fragrances first (or best match first with search), each with its slug, country, ' +
      'number of fragrances and top accords. Paged with limit and offset.',
    input: BrandsInput,
    output: BrandsOutput,
    answer: forwarded(
      BrandsQuery,
      (query) => ctx.catalogue.brands(query),
      (r) =>
        [
          pageLine(r),
          ...r.data.map((b) => `- ${b.name} (${b.country}), ${b.fragrance_count} fragrances; ${b.top_accords.join(', ')} [slug ${b.slug}]`),
        ].join('\n'),
    ),
  });

  registerReadTool(server, run, {
    name: 'get_brand',
    title: 'Get a brand',
    description:
      "One brand's profile by slug: country, number of fragrances, top accords and notes, its most prolific perfumers, " +
      'first and last release years and total votes. Use search_fragrances with brand=<name> for its fragrances.',
    input: BrandInput,
    output: BrandOutput,
    answer: forwarded(
      BrandSlugParams,
      ({ slug }) => ctx.catalogue.brand(slug),
      (b) =>
        [
          `${b.name} (${b.country}): ${b.fragrance_count} fragrances${b.year_first === null ? '' : `, ${b.year_first}-${b.year_last ?? '?'}`}, ${b.votes} votes.`,
          `Top accords: ${b.top_accords.join(', ') || 'n/a'}. Top notes: ${b.top_notes.join(', ') || 'n/a'}.`,
          `Perfumers: ${b.perfumers.join(', ') || 'unknown'}.`,
        ].join('\n'),
    ),
  });

  for (const { kind, tool, title, filter } of TERMS) {
    registerReadTool(server, run, {
      name: tool,
      title,
      description:
        `The ${kind} of the catalogue, most fragrances first (or best match first with search), each with how many ` +
        `fragrances have it. Its slug or name works as the ${filter} filter of search_fragrances. Paged with limit and offset.`,
      input: TermsInput,
      output: TermsOutput,
      answer: forwarded(
        TermsQuery,
        (query) => ctx.catalogue.terms(kind, query),
        (r) => [pageLine(r), ...r.data.map((t) => `- ${t.name}: ${t.fragrance_count} fragrances [slug ${t.slug}]`)].join('\n'),
      ),
    });
  }
}
