import { CONCENTRATIONS, foldKey, OCCASIONS, SEASONS, SuggestQuery, SuggestResponse, TermList, BrandList } from '@fragrance/contracts';
import type { ToolContext } from './tools/run.ts';

/**
 * Completion sources for prompt arguments and resource-template variables (completion/complete).
 * Catalogue names come from the suggestion index (GET /v1/suggest, or the most popular ones from
 * the browse lists while nothing is typed); the fixed vocabularies are filtered here. A failing
 * catalogue gives no suggestions rather than an error: completion is a convenience while typing.
 */
export type NameKind = 'brand' | 'note' | 'accord' | 'perfumer';

/** At most this many values per answer (the suggestion endpoint's own maximum). */
export const MAX_COMPLETIONS = 20;

const TERMS = { note: 'notes', accord: 'accords', perfumer: 'perfumers' } as const;

/** Names (or slugs) of brands, notes, accords or perfumers starting with what is typed, best first. */
export async function completeNames(ctx: ToolContext, kind: NameKind, typed: string, as: 'name' | 'slug' = 'name'): Promise<string[]> {
  try {
    if (foldKey(typed) === '') {
      // Nothing typed yet: the most common ones (browse lists are ordered by fragrance count).
      const page =
        kind === 'brand'
          ? BrandList.parse(await ctx.catalogue.brands({ limit: MAX_COMPLETIONS }))
          : TermList.parse(await ctx.catalogue.terms(TERMS[kind], { limit: MAX_COMPLETIONS }));
      return page.data.map((item) => (as === 'slug' ? item.slug : item.name));
    }
    const query = SuggestQuery.safeParse({ q: typed, types: kind, limit: String(MAX_COMPLETIONS) });
    if (!query.success) return [];
    const body = SuggestResponse.parse(await ctx.catalogue.suggest({ q: typed, types: [kind], limit: MAX_COMPLETIONS }));
    const values = body.data.flatMap((s) => (as === 'slug' ? (s.slug ? [s.slug] : []) : [s.text]));
    return [...new Set(values)];
  } catch (error) {
    ctx.logger.warn({ err: error, request_id: ctx.requestId, kind }, 'completion unavailable');
    return [];
  }
}

/** A fragrance named by what is typed: "Name (Brand)" values, which resolveFragrance finds again. */
export async function completeFragrances(ctx: ToolContext, typed: string): Promise<string[]> {
  if (foldKey(typed) === '' || typed.length > 100) return [];
  try {
    const body = SuggestResponse.parse(await ctx.catalogue.suggest({ q: typed, types: ['fragrance'], limit: MAX_COMPLETIONS }));
    return [...new Set(body.data.map((s) => (s.brand ? `${s.text} (${s.brand})` : s.text)))];
  } catch (error) {
    ctx.logger.warn({ err: error, request_id: ctx.requestId, kind: 'fragrance' }, 'completion unavailable');
    return [];
  }
}

/** The best-matching fragrance for a name as a user (or completeFragrances) wrote it, or undefined. */
export async function resolveFragrance(ctx: ToolContext, name: string): Promise<{ id: string; name: string; brand: string } | undefined> {
  const q = name.slice(0, 100);
  if (foldKey(q) === '') return undefined;
  try {
    const body = SuggestResponse.parse(await ctx.catalogue.suggest({ q, types: ['fragrance'], limit: 1 }));
    const best = body.data[0];
    return best?.id ? { id: best.id, name: best.text, brand: best.brand ?? '' } : undefined;
  } catch (error) {
    ctx.logger.warn({ err: error, request_id: ctx.requestId }, 'could not resolve a fragrance name');
    return undefined;
  }
}

/**
 * Completes the last item of a comma-separated list ("rose, vani" → "rose, vanilla"), so a prompt
 * argument such as liked_notes takes several names and each completes as it is typed.
 */
export async function completeLastItem(typed: string, complete: (item: string) => Promise<string[]>): Promise<string[]> {
  const cut = typed.lastIndexOf(',');
  const head = cut === -1 ? '' : `${typed.slice(0, cut).trimEnd()}, `;
  const last = typed.slice(cut + 1).trim();
  const done = new Set(
    typed
      .slice(0, Math.max(cut, 0))
      .split(',')
      .map((item) => foldKey(item))
      .filter(Boolean),
  );
  return (await complete(last)).filter((value) => !done.has(foldKey(value))).map((value) => `${head}${value}`);
}

/** Members of a fixed vocabulary whose folded text starts with (or, failing that, contains) what is typed. */
export function completeFrom(vocabulary: readonly string[], typed: string): string[] {
  const key = foldKey(typed);
  if (key === '') return [...vocabulary];
  const starts = vocabulary.filter((value) => foldKey(value).startsWith(key));
  return starts.length > 0 ? starts : vocabulary.filter((value) => foldKey(value).includes(key));
}

export const completeConcentration = (typed: string) => completeFrom(CONCENTRATIONS, typed);
export const completeSeason = (typed: string) => completeFrom(SEASONS, typed);
export const completeOccasion = (typed: string) => completeFrom(OCCASIONS, typed);
