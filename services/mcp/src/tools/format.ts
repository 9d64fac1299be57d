import type { FragranceDetail, FragranceSummary, SearchResponse, SimilarFragrance } from '@fragrance/contracts';

/** Short human-readable renderings beside the structured content (for clients that show text). */
export function summaryLine(f: FragranceSummary, index?: number): string {
  const facts = [f.concentration, f.year_released ?? undefined, f.country].filter(Boolean).join(', ');
  const rating = f.rating.average === null ? 'unrated' : `${f.rating.average.toFixed(1)}/5 (${f.rating.count} votes)`;
  const lead = index === undefined ? '' : `${index}. `;
  return `${lead}${f.name} by ${f.brand} (${facts}), ${rating}${f.main_accords.length ? `; ${f.main_accords.join(', ')}` : ''} [id ${f.id}]`;
}

export function searchText(result: Pick<SearchResponse, 'data' | 'total' | 'offset' | 'next_cursor' | 'relaxed' | 'did_you_mean'>): string {
  // Said first, so an assistant does not present a looser answer as an exact one.
  const notes = [
    ...(result.relaxed ? [`Nothing matched every word; these match without: ${result.relaxed.dropped.join(', ')}.`] : []),
    ...(result.did_you_mean ? [`Did you mean "${result.did_you_mean.query}" (${result.did_you_mean.total} matches)?`] : []),
  ];
  if (result.data.length === 0) return [`No fragrances matched (total ${result.total}).`, ...notes].join('\n');
  const first = result.offset + 1;
  const last = result.offset + result.data.length;
  return [
    ...notes,
    `${result.total} fragrances matched; showing ${result.data.length} (${first}-${last}):`,
    ...result.data.map((f, i) => summaryLine(f, first + i)),
    ...(result.next_cursor ? [`More results: pass cursor "${result.next_cursor}" with the same arguments.`] : []),
  ].join('\n');
}

export function detailText(f: FragranceDetail): string {
  return [
    summaryLine(f),
    `Notes: top ${f.notes.top.join(', ') || 'n/a'}; heart ${f.notes.heart.join(', ') || 'n/a'}; base ${f.notes.base.join(', ') || 'n/a'}.`,
    `Accords: ${f.accords.join(', ') || 'n/a'}. Perfumers: ${f.perfumers.join(', ') || 'unknown'}.`,
    f.au_availability.available
      ? `Available in Australia from ${f.au_offers.length} offer(s)${f.au_availability.price_min_aud ? `, from AUD ${f.au_availability.price_min_aud}` : ''}.`
      : 'Not seen at Australian retailers.',
    ...(f.description ? [f.description] : []),
  ].join('\n');
}

export function facetsText(f: {
  total: number;
  brands: Bucket[];
  concentrations: Bucket[];
  accords: Bucket[];
  decades: Bucket[];
  genders: Bucket[];
}): string {
  const list = (buckets: Bucket[]) => buckets.map((b) => `${b.value} (${b.count})`).join(', ') || 'none';
  return [
    `${f.total} fragrances match.`,
    `Brands: ${list(f.brands)}.`,
    `Concentrations: ${list(f.concentrations)}.`,
    `Accords: ${list(f.accords)}.`,
    `Decades: ${list(f.decades)}.`,
    `Genders: ${list(f.genders)}.`,
  ].join('\n');
}

interface Bucket {
  value: string;
  count: number;
}

/** similar_fragrances as text: each alternative with its closeness and the reasons it shares notes, worded as likeness. */
export function similarText(id: string, data: readonly SimilarFragrance[]): string {
  if (data.length === 0) return 'No similar fragrances found (with these filters).';
  return [
    `Alternatives to ${id} (shared notes and accords; similar, not identical):`,
    ...data.map((f, i) => `${summaryLine(f, i + 1)}\n   closeness ${f.closeness.toFixed(2)}: ${f.reasons.summary}`),
  ].join('\n');
}
