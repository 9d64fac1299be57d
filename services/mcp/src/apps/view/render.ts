// The three views as HTML strings from a tool's structured result: plain functions (unit-tested in
// Node), inserted by main.ts. Every value from the catalogue goes through `esc`. No inline style
// or handler attribute: the view's CSP allows neither, and buttons are wired by delegation.
import type { FragranceDetail, FragranceSummary, SimilarReasons } from '@fragrance/contracts';
import type { CompareOutput } from '../../tools/compare.ts';
import type { z } from 'zod';

export type Compared = z.infer<z.ZodObject<typeof CompareOutput>>;

/** What a result-list tool answers (search_fragrances, similar_fragrances, discover_fragrances). */
export interface ResultList {
  data: (FragranceSummary & { closeness?: number; reasons?: SimilarReasons; why?: string[] })[];
  total?: number;
  offset?: number;
  /** similar_fragrances: the id the results are alternatives to. */
  id?: string;
  /** discover_fragrances: the description searched for. */
  description?: string;
  relaxed?: { dropped: string[] };
  did_you_mean?: { query: string; total: number };
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value, escaped for HTML. */
export function esc(value: string | number | null | undefined): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const STAGES = [
  ['top', 'Top notes', 'the first impression, minutes'],
  ['heart', 'Heart notes', 'the body, hours'],
  ['base', 'Base notes', 'the dry-down, what lasts'],
] as const;

function facts(f: Pick<FragranceSummary, 'brand' | 'concentration' | 'year_released' | 'country'>): string {
  return [f.brand, f.concentration, f.year_released ?? undefined, f.country]
    .filter((v) => v !== undefined)
    .map(esc)
    .join(' · ');
}

/** A rating as a meter and words (the meter is for the eye; the words are what a screen reader says). */
function rating(r: FragranceSummary['rating']): string {
  if (r.average === null) return '<p class="rating">Not rated yet</p>';
  const average = r.average.toFixed(1);
  return (
    `<p class="rating"><meter min="0" max="5" low="2.5" high="3.9" optimum="5" value="${average}" aria-hidden="true"></meter> ` +
    `<strong>${average}</strong>/5 <span class="muted">(${r.count.toLocaleString('en-AU')} votes)</span></p>`
  );
}

function chips(values: readonly string[], marked: readonly string[] = [], mark = ''): string {
  if (values.length === 0) return '<p class="muted">none listed</p>';
  const shared = new Set(marked.map((v) => v.toLowerCase()));
  return `<ul class="chips">${values
    .map((v) =>
      shared.has(v.toLowerCase())
        ? `<li class="chip marked">${esc(v)}<span class="sr-only"> (${esc(mark)})</span></li>`
        : `<li class="chip">${esc(v)}</li>`,
    )
    .join('')}</ul>`;
}

const aud = (value: number) => `AUD ${value.toFixed(2)}`;

function availability(f: FragranceDetail): string {
  const a = f.au_availability;
  const checked = a.checked_at ? ` <span class="muted">(checked ${esc(a.checked_at.slice(0, 10))})</span>` : '';
  if (!a.available || f.au_offers.length === 0) return `<p>Not seen at Australian retailers.${checked}</p>`;
  const range =
    a.price_min_aud !== null && a.price_max_aud !== null && a.price_min_aud !== a.price_max_aud
      ? `${aud(a.price_min_aud)} to ${aud(a.price_max_aud)}`
      : a.price_min_aud !== null
        ? aud(a.price_min_aud)
        : '';
  const offers = [...f.au_offers].sort((x, y) => x.price_aud - y.price_aud);
  return (
    `<p>Available from ${offers.length} offer${offers.length === 1 ? '' : 's'}${range ? `, ${range}` : ''}.${checked}</p>` +
    '<div class="scroll" role="region" aria-label="Offers at Australian retailers" tabindex="0"><table class="offers">' +
    '<thead><tr><th scope="col">Retailer</th><th scope="col">Size</th><th scope="col">Price</th><th scope="col">Stock</th><th scope="col"><span class="sr-only">Link</span></th></tr></thead><tbody>' +
    offers
      .map(
        (o) =>
          `<tr><th scope="row">${esc(o.retailer)}</th><td>${o.size_ml} ml</td><td>${aud(o.price_aud)}</td>` +
          `<td>${o.in_stock ? 'In stock' : '<span class="muted">Out of stock</span>'}</td>` +
          `<td><button type="button" data-open="${esc(o.url)}">Open offer<span class="sr-only"> at ${esc(o.retailer)}</span></button></td></tr>`,
      )
      .join('') +
    '</tbody></table></div>'
  );
}

/** get_fragrance: identity, rating, the notes pyramid, accords by strength, AU availability with offers. */
export function fragranceView(f: FragranceDetail): string {
  const pyramid = STAGES.map(
    ([stage, title, hint]) =>
      `<li class="tier tier-${stage}"><h3>${title} <span class="muted">${hint}</span></h3>${chips(f.notes[stage])}</li>`,
  ).join('');
  // Accords come strongest first; the bar shows the rank (the catalogue has no percentages).
  const accords = f.accords
    .map((a, i) => `<li><span class="accord">${esc(a)}</span><span class="bar bar-${Math.max(1, 10 - i)}" aria-hidden="true"></span></li>`)
    .join('');
  return (
    `<article aria-labelledby="title"><header><h1 id="title">${esc(f.name)}</h1><p class="facts">${facts(f)}</p>${rating(f.rating)}` +
    (f.perfumers.length ? `<p class="muted">Perfumer: ${f.perfumers.map(esc).join(', ')}</p>` : '') +
    '</header>' +
    `<section aria-labelledby="pyramid-title"><h2 id="pyramid-title">Notes pyramid</h2><ol class="pyramid">${pyramid}</ol></section>` +
    `<section aria-labelledby="accords-title"><h2 id="accords-title">Accords</h2>${accords ? `<ol class="accords">${accords}</ol>` : '<p class="muted">none listed</p>'}</section>` +
    `<section aria-labelledby="au-title"><h2 id="au-title">In Australia</h2>${availability(f)}</section>` +
    (f.description ? `<section aria-labelledby="about-title"><h2 id="about-title">About</h2><p>${esc(f.description)}</p></section>` : '') +
    '</article>'
  );
}

/** compare_fragrances: one column per fragrance; shared notes and accords marked, the best rated named. */
export function comparisonView(r: Compared): string {
  const cols = r.fragrances;
  const head = cols
    .map(
      (f) =>
        `<th scope="col"><span class="name">${esc(f.name)}</span><span class="muted">${esc(f.brand)}</span>` +
        (f.id === r.best_rated ? '<span class="badge">Best rated</span>' : '') +
        '</th>',
    )
    .join('');
  const row = (title: string, cell: (f: Compared['fragrances'][number]) => string) =>
    `<tr><th scope="row">${title}</th>${cols.map((f) => `<td>${cell(f)}</td>`).join('')}</tr>`;
  const rows = [
    row('Rating', (f) => rating(f.rating)),
    row('Concentration', (f) => esc(f.concentration)),
    row('Released', (f) => esc(f.year_released ?? 'unknown')),
    ...STAGES.map(([stage, title]) => row(title, (f) => chips(f.notes[stage], r.shared_notes[stage], 'shared by all'))),
    row('Accords', (f) => chips(f.accords, r.shared_accords, 'shared by all')),
    row('Only this one', (f) => chips([...f.distinct_accords, ...f.distinct_notes])),
    row('In Australia', (f) =>
      f.au_availability.available
        ? `Available${f.au_availability.price_min_aud ? ` from ${aud(f.au_availability.price_min_aud)}` : ''}`
        : 'Not seen',
    ),
    row(
      '',
      (f) =>
        `<button type="button" data-ask="${esc(f.id)}" data-name="${esc(f.name)}">Ask about it<span class="sr-only">: ${esc(f.name)}</span></button>`,
    ),
  ].join('');
  return (
    `<h1>Comparing ${cols.length} fragrances</h1>` +
    `<p>Shared accords: ${r.shared_accords.length ? r.shared_accords.map(esc).join(', ') : 'none'}. ` +
    `Notes all share: ${r.shared_notes_any_stage.length ? r.shared_notes_any_stage.map(esc).join(', ') : 'none'}. ` +
    '<span class="legend"><span class="chip marked">marked</span> = shared by all</span></p>' +
    `<div class="scroll" role="region" aria-label="Comparison table" tabindex="0"><table class="compare"><thead><tr><td></td>${head}</tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

function resultItem(f: ResultList['data'][number], position: number): string {
  const likeness =
    f.closeness === undefined
      ? ''
      : `<p><meter min="0" max="1" value="${f.closeness.toFixed(2)}" aria-hidden="true"></meter> closeness ${f.closeness.toFixed(2)}` +
        (f.reasons ? `: ${esc(f.reasons.summary)}` : '') +
        '</p>';
  const why = f.why?.length ? `<p class="muted">${f.why.map(esc).join('; ')}</p>` : '';
  return (
    `<li><article aria-labelledby="r-${position}"><h2 id="r-${position}"><span class="pos">${position}.</span> ${esc(f.name)}</h2>` +
    `<p class="facts">${facts(f)}</p>${rating(f.rating)}${chips(f.main_accords)}${likeness}${why}` +
    `<button type="button" data-ask="${esc(f.id)}" data-name="${esc(f.name)}">Ask about it<span class="sr-only">: ${esc(f.name)}</span></button>` +
    '</article></li>'
  );
}

/** search_fragrances, similar_fragrances, discover_fragrances: the hits in order, each with its facts. */
export function resultsView(r: ResultList): string {
  const first = (r.offset ?? 0) + 1;
  const title =
    r.description !== undefined
      ? `Fragrances for “${esc(r.description)}”`
      : r.data.some((f) => f.closeness !== undefined)
        ? `${r.data.length} alternatives (similar, not identical)`
        : r.total !== undefined
          ? `${r.total.toLocaleString('en-AU')} fragrances matched${r.data.length ? `; ${first}–${first + r.data.length - 1} shown` : ''}`
          : `${r.data.length} fragrances`;
  const notes = [
    ...(r.relaxed ? [`Nothing matched every word; these match without: ${r.relaxed.dropped.map(esc).join(', ')}.`] : []),
    ...(r.did_you_mean ? [`Did you mean “${esc(r.did_you_mean.query)}” (${r.did_you_mean.total} matches)?`] : []),
  ];
  return (
    `<h1>${title}</h1>${notes.map((n) => `<p class="note">${n}</p>`).join('')}` +
    (r.data.length
      ? `<ol class="results">${r.data.map((f, i) => resultItem(f, first + i)).join('')}</ol>`
      : '<p>No fragrances matched.</p>')
  );
}

/** A tool error, or a result without structured content: its text, as the host would show it. */
export function textView(texts: readonly string[], isError: boolean): string {
  return `<div class="${isError ? 'error' : ''}" role="${isError ? 'alert' : 'status'}">${texts.map((t) => `<p>${esc(t)}</p>`).join('')}</div>`;
}
