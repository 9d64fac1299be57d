import type { FacetBucket, Facets, FragranceDetail, SearchHit, SearchResponse, SimilarResponse } from '@fragrance/contracts';
import type { FailureMessage } from './api.ts';
import { h } from './dom.ts';
import { FACETS, isFiltered, pageInfo, type FacetName, type StoreState } from './state.ts';

/*
 * Rendering: plain functions from data to elements. Links carry real addresses (`?id=…`), so
 * they work with a middle click too; main.ts turns plain clicks into in-page navigation.
 */

const FACET_TITLES: Record<FacetName, string> = { brand: 'Brand', concentration: 'Concentration', note: 'Notes', season: 'Season' };
/** Buckets shown per facet (the selected ones always are). */
const FACET_SHOWN = 10;

export function formatRating(rating: SearchHit['rating']): string {
  return rating.average === null ? 'No ratings yet' : `${rating.average.toFixed(2)} / 5 (${rating.count.toLocaleString('en')} votes)`;
}

function summaryLine(hit: Pick<SearchHit, 'brand' | 'concentration' | 'year_released'>): string {
  return [hit.brand, hit.concentration, hit.year_released].filter((part) => part !== null).join(' · ');
}

function selectedValues(state: StoreState, facet: FacetName): string[] {
  if (facet === 'brand') return state.brand === null ? [] : [state.brand];
  if (facet === 'concentration') return state.concentration === null ? [] : [state.concentration];
  return facet === 'note' ? state.notes : state.seasons;
}

function sameValue(a: string, b: string): boolean {
  return a.localeCompare(b, 'en', { sensitivity: 'base' }) === 0;
}

/** The buckets to offer: the top ones, plus any selected value the counts did not list. */
function shownBuckets(buckets: FacetBucket[], selected: string[]): FacetBucket[] {
  const shown = buckets.slice(0, FACET_SHOWN);
  for (const value of selected) {
    if (!shown.some((bucket) => sameValue(bucket.value, value))) {
      shown.push(buckets.find((bucket) => sameValue(bucket.value, value)) ?? { value, count: 0 });
    }
  }
  return shown;
}

/** One fieldset per facet: radio buttons for brand and concentration (one value), checkboxes for notes and seasons (all of them). */
export function renderFacets(facets: Facets | undefined, state: StoreState): HTMLElement[] {
  return FACETS.flatMap((facet) => {
    const selected = selectedValues(state, facet);
    const buckets = shownBuckets(facets?.[facet] ?? [], selected);
    if (buckets.length === 0) return [];
    const single = facet === 'brand' || facet === 'concentration';
    const option = (value: string | null, label: string, count: number | null) => {
      const id = `facet-${facet}-${value === null ? 'any' : encodeURIComponent(value).replace(/%/g, '_')}`;
      const checked = value === null ? selected.length === 0 : selected.some((s) => sameValue(s, value));
      return h(
        'div',
        { class: 'facet-option' },
        h('input', {
          type: single ? 'radio' : 'checkbox',
          id,
          name: `facet-${facet}`,
          'data-facet': facet,
          'data-value': value ?? '',
          checked,
        }),
        h('label', { for: id }, label, count === null ? '' : h('span', { class: 'count' }, ` ${count.toLocaleString('en')}`)),
      );
    };
    const any = single ? [option(null, facet === 'brand' ? 'Any brand' : 'Any concentration', null)] : [];
    return [
      h(
        'fieldset',
        { class: 'facet' },
        h('legend', {}, FACET_TITLES[facet]),
        ...any,
        ...buckets.map((bucket) => option(bucket.value, bucket.value, bucket.count)),
      ),
    ];
  });
}

/** One card per hit; its name links to the detail. */
export function renderResults(hits: SearchHit[], hrefOf: (id: string) => string): HTMLElement[] {
  return hits.map((hit) =>
    h(
      'li',
      { class: 'card' },
      h('h3', { class: 'card-name' }, h('a', { href: hrefOf(hit.id), 'data-open': hit.id }, hit.name)),
      h('p', { class: 'card-line' }, summaryLine(hit)),
      hit.main_accords.length > 0 ? h('p', { class: 'card-accords' }, hit.main_accords.join(', ')) : null,
      h(
        'p',
        { class: 'card-rating' },
        formatRating(hit.rating),
        hit.available_in_au ? h('span', { class: 'badge' }, 'In stock in AU') : null,
      ),
    ),
  );
}

export function resultsHeading(state: StoreState): string {
  if (state.query !== '') return `Results for “${state.query}”`;
  return isFiltered(state) ? 'Filtered fragrances' : 'Popular fragrances';
}

export function resultsSummary(answer: SearchResponse, state: StoreState): string {
  if (answer.total === 0) return state.query === '' ? 'No fragrance matches these filters.' : `No fragrance matches “${state.query}”.`;
  const info = pageInfo(answer.total, state.page);
  return `${info.first.toLocaleString('en')}–${info.last.toLocaleString('en')} of ${answer.total.toLocaleString('en')} fragrances`;
}

/** Above the results: a respelling to try, or the words a looser search left out. */
export function renderNotice(answer: SearchResponse, state: StoreState, hrefOfQuery: (query: string) => string): HTMLElement | null {
  if (answer.did_you_mean) {
    const { query, total } = answer.did_you_mean;
    return h(
      'p',
      { class: 'notice' },
      'Did you mean ',
      h('a', { href: hrefOfQuery(query), 'data-query': query }, query),
      ` (${total} fragrances)?`,
    );
  }
  if (answer.relaxed && answer.relaxed.dropped.length > 0) {
    return h('p', { class: 'notice' }, `Nothing matched every word; showing matches without “${answer.relaxed.dropped.join(' ')}”.`);
  }
  if (answer.total === 0 && isFiltered(state)) {
    return h(
      'p',
      { class: 'notice' },
      'Try fewer filters or other words. ',
      h('button', { type: 'button', class: 'link', 'data-action': 'clear' }, 'Clear all filters'),
    );
  }
  return null;
}

function list(title: string, items: readonly string[]): HTMLElement[] {
  return items.length === 0 ? [] : [h('dt', {}, title), h('dd', {}, items.join(', '))];
}

/** The detail card: the record, then a slot for its similar fragrances. */
export function renderDetail(record: FragranceDetail): HTMLElement[] {
  const au = record.au_availability;
  const price =
    au.available && au.price_min_aud !== null
      ? `Available in Australia from A$${au.price_min_aud.toFixed(2)}`
      : au.available
        ? 'Available in Australia'
        : 'Not sold in Australia at the moment';
  return [
    h('button', { type: 'button', class: 'close', 'data-action': 'close-detail' }, 'Close details'),
    h('h2', { id: 'detail-name', tabindex: '-1' }, record.name),
    h('p', { class: 'card-line' }, summaryLine(record)),
    h('p', { class: 'card-rating' }, formatRating(record.rating)),
    record.description === null ? null : h('p', { class: 'description' }, record.description),
    h(
      'dl',
      { class: 'facts' },
      ...list('Top notes', record.notes.top),
      ...list('Heart notes', record.notes.heart),
      ...list('Base notes', record.notes.base),
      ...list('Accords', record.accords),
      ...list('Perfumers', record.perfumers),
      ...list('Seasons', record.seasons),
    ),
    h('p', { class: 'availability' }, price),
    h('h3', { id: 'similar-heading' }, 'Similar fragrances'),
    h(
      'div',
      { id: 'similar', 'aria-labelledby': 'similar-heading', 'aria-busy': 'true' },
      h('p', { class: 'loading' }, 'Finding similar fragrances…'),
    ),
  ].filter((element) => element !== null);
}

export function renderSimilar(answer: SimilarResponse, hrefOf: (id: string) => string): HTMLElement {
  if (answer.data.length === 0) return h('p', { class: 'empty' }, 'No similar fragrances found.');
  return h(
    'ol',
    { class: 'similar-list' },
    ...answer.data.map((item) =>
      h(
        'li',
        {},
        h('a', { href: hrefOf(item.id), 'data-open': item.id }, item.name),
        h('span', { class: 'card-line' }, ` ${summaryLine(item)} · ${Math.round(item.closeness * 100)}% alike`),
        h('p', { class: 'reason' }, item.reasons.summary),
      ),
    ),
  );
}

/** An error box: headline, explanation, and a retry button when trying again can help. */
export function renderFailure(message: FailureMessage): HTMLElement[] {
  return [
    h('p', { class: 'alert-title' }, h('strong', {}, message.title)),
    h('p', {}, message.text),
    message.retry ? h('button', { type: 'button', 'data-action': 'retry' }, 'Try again') : null,
  ].filter((element) => element !== null);
}
