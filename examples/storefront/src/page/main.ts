import { ApiFailure, createApi, describeFailure, type StorefrontApi } from './api.ts';
import { attachCombobox } from './combobox.ts';
import { byId, h } from './dom.ts';
import {
  renderDetail,
  renderFacets,
  renderFailure,
  renderNotice,
  renderResults,
  renderSimilar,
  resultsHeading,
  resultsSummary,
} from './render.ts';
import {
  hasFilters,
  opened,
  onPage,
  pageInfo,
  searchParams,
  stateFromUrl,
  toggled,
  urlFromState,
  withoutFilters,
  withQuery,
  withSingle,
  type StoreState,
} from './state.ts';

/** What the server put in the page: where the API is and the publishable key (public by design). */
interface PageConfig {
  apiUrl: string;
  publishableKey: string;
}

function readConfig(): PageConfig {
  const text = document.getElementById('storefront-config')?.textContent ?? '';
  const config = JSON.parse(text === '' ? 'null' : text) as Partial<PageConfig> | null;
  if (typeof config?.apiUrl !== 'string' || typeof config.publishableKey !== 'string') {
    throw new Error('The page has no API configuration: serve it with `npm run example:storefront`.');
  }
  return { apiUrl: config.apiUrl, publishableKey: config.publishableKey };
}

const input = byId('search-input', HTMLInputElement);
const announcer = byId('announcer', HTMLElement);
const alertBox = byId('alert', HTMLElement);
const facetsBox = byId('facets', HTMLElement);
const heading = byId('results-heading', HTMLElement);
const detail = byId('detail', HTMLElement);

let state = stateFromUrl(location.search);
let api: StorefrontApi;
/** The search and detail on screen (as request keys), so opening a card does not search again. */
let shownSearch: string | null = null;
let shownDetail: string | null = null;
let searching: AbortController | undefined;
let loadingDetail: AbortController | undefined;
/** The link that opened the detail card, to give the focus back when it closes. */
let returnFocusTo: string | null = null;
let retry: (() => void) | null = null;

const hrefOf = (next: StoreState) => urlFromState(next) || location.pathname;

function announce(text: string): void {
  // A change of text is what a live region reads out; clear first so a repeat is read too.
  announcer.textContent = '';
  requestAnimationFrame(() => (announcer.textContent = text));
}

function showFailure(failure: unknown, again: (() => void) | null): void {
  const message = describeFailure(failure, location.origin);
  alertBox.replaceChildren(...renderFailure(message));
  alertBox.hidden = false;
  retry = message.retry ? again : null;
}

function clearFailure(): void {
  alertBox.hidden = true;
  alertBox.replaceChildren();
  retry = null;
}

type Focus = 'results' | 'detail' | 'keep';

/** Moves to `next`: a new history entry (or the one Back/Forward reached), then what changed is fetched. */
function navigate(next: StoreState, focus: Focus, push = true): void {
  state = next;
  if (push) history.pushState(null, '', hrefOf(state));
  if (document.activeElement !== input) input.value = state.query;
  document.title = state.query === '' ? 'Fragrance finder' : `${state.query} — Fragrance finder`;
  void Promise.all([loadResults(focus === 'results'), loadDetail(focus === 'detail')]);
}

async function loadResults(focusHeading: boolean): Promise<void> {
  const params = searchParams(state);
  const key = params.toString();
  if (key === shownSearch) {
    if (focusHeading) heading.focus();
    return;
  }
  searching?.abort();
  const controller = new AbortController();
  searching = controller;
  const results = byId('results', HTMLElement);
  results.setAttribute('aria-busy', 'true');
  try {
    const answer = await api.search(params, controller.signal);
    if (controller.signal.aborted) return;
    const last = pageInfo(answer.total, state.page).pages;
    if (answer.data.length === 0 && state.page > last) {
      // A page past the end (an old link, fewer hits since): show the last page instead.
      state = onPage(state, last);
      history.replaceState(null, '', hrefOf(state));
      return void loadResults(focusHeading);
    }
    shownSearch = key;
    clearFailure();
    const focused = document.activeElement instanceof HTMLInputElement ? document.activeElement.dataset : null;
    heading.textContent = resultsHeading(state);
    byId('results-summary', HTMLElement).textContent = resultsSummary(answer, state);
    byId('results-notice', HTMLElement).replaceChildren(
      ...[renderNotice(answer, state, (query) => hrefOf(withQuery(state, query)))].filter((n) => n !== null),
    );
    results.replaceChildren(...renderResults(answer.data, (id) => hrefOf(opened(state, id))));
    facetsBox.replaceChildren(...renderFacets(answer.facets, state));
    byId('clear-filters', HTMLElement).hidden = !hasFilters(state);
    renderPager(answer.total);
    // A facet that was just ticked is drawn anew: give it its focus back.
    if (focused?.facet !== undefined) {
      facetsBox
        .querySelector<HTMLInputElement>(`input[data-facet="${focused.facet}"][data-value="${CSS.escape(focused.value ?? '')}"]`)
        ?.focus();
    }
    if (focusHeading) heading.focus();
    announce(resultsSummary(answer, state));
  } catch (error) {
    if (controller.signal.aborted) return;
    shownSearch = null;
    showFailure(error, () => void loadResults(false));
  } finally {
    if (searching === controller) results.removeAttribute('aria-busy');
  }
}

function renderPager(total: number): void {
  const info = pageInfo(total, state.page);
  const pager = byId('pager', HTMLElement);
  pager.hidden = info.pages <= 1;
  byId('page-status', HTMLElement).textContent = `Page ${info.page} of ${info.pages.toLocaleString('en')}`;
  byId('previous-page', HTMLButtonElement).disabled = !info.hasPrevious;
  byId('next-page', HTMLButtonElement).disabled = !info.hasNext;
}

async function loadDetail(focusCard: boolean): Promise<void> {
  const id = state.open;
  if (id === shownDetail) return;
  loadingDetail?.abort();
  if (id === null) {
    shownDetail = null;
    detail.hidden = true;
    detail.replaceChildren();
    const link =
      returnFocusTo === null ? null : document.querySelector<HTMLElement>(`#results a[data-open="${CSS.escape(returnFocusTo)}"]`);
    (link ?? heading).focus();
    return;
  }
  const controller = new AbortController();
  loadingDetail = controller;
  detail.hidden = false;
  detail.setAttribute('aria-busy', 'true');
  detail.replaceChildren(h('p', { class: 'loading' }, 'Loading…'));
  try {
    const record = await api.fragrance(id, controller.signal);
    if (controller.signal.aborted) return;
    shownDetail = id;
    detail.replaceChildren(...renderDetail(record));
    detail.removeAttribute('aria-busy');
    if (focusCard) byId('detail-name', HTMLElement).focus();
    announce(`${record.name} by ${record.brand}`);
    const similar = await api.similar(id, controller.signal);
    if (controller.signal.aborted) return;
    const slot = byId('similar', HTMLElement);
    slot.replaceChildren(renderSimilar(similar, (other) => hrefOf(opened(state, other))));
    slot.removeAttribute('aria-busy');
  } catch (error) {
    if (controller.signal.aborted) return;
    if (shownDetail !== id) {
      shownDetail = null;
      detail.removeAttribute('aria-busy');
      detail.replaceChildren(
        h('button', { type: 'button', class: 'close', 'data-action': 'close-detail' }, 'Close details'),
        h('h2', { id: 'detail-name', tabindex: '-1' }, 'This fragrance could not be shown'),
      );
    } else {
      document.getElementById('similar')?.replaceChildren(h('p', { class: 'empty' }, 'Similar fragrances could not be loaded.'));
    }
    showFailure(error, () => {
      shownDetail = null;
      void loadDetail(true);
    });
  }
}

function wire(): void {
  const combobox = attachCombobox({
    input,
    listbox: byId('suggestions', HTMLUListElement),
    api,
    announce,
    onError: (error) => showFailure(error, null),
    onChoose: (suggestion) => {
      if (suggestion.type === 'fragrance' && suggestion.id !== undefined) {
        returnFocusTo = null;
        navigate(opened(withQuery(state, suggestion.text), suggestion.id), 'detail');
      } else if (suggestion.type === 'brand') navigate(withSingle(withQuery(state, ''), 'brand', suggestion.text), 'results');
      else if (suggestion.type === 'note') navigate(toggled(withQuery(state, ''), 'note', suggestion.text), 'results');
      else navigate(withQuery(state, suggestion.text), 'results');
      // The box shows what is searched now (a brand or note became a filter, not text).
      input.value = state.query;
    },
  });
  byId('search-form', HTMLElement).addEventListener('submit', (event) => {
    event.preventDefault();
    combobox.close();
    navigate(withQuery(state, input.value), 'keep');
  });
  facetsBox.addEventListener('change', (event) => {
    const target = event.target as HTMLInputElement;
    const facet = target.dataset.facet;
    const value = target.dataset.value ?? '';
    if (facet === 'brand' || facet === 'concentration') navigate(withSingle(state, facet, value === '' ? null : value), 'keep');
    else if (facet === 'note' || facet === 'season') navigate(toggled(state, facet, value), 'keep');
  });
  byId('previous-page', HTMLElement).addEventListener('click', () => navigate(onPage(state, state.page - 1), 'results'));
  byId('next-page', HTMLElement).addEventListener('click', () => navigate(onPage(state, state.page + 1), 'results'));
  byId('clear-filters', HTMLElement).addEventListener('click', () => navigate(withoutFilters(state), 'results'));
  document.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const target = (event.target as Element).closest<HTMLElement>('[data-open], [data-query], [data-action]');
    if (target === null) return;
    const { open, query, action } = target.dataset;
    if (open !== undefined) {
      event.preventDefault();
      if (target.closest('#results') !== null) returnFocusTo = open;
      navigate(opened(state, open), 'detail');
    } else if (query !== undefined) {
      event.preventDefault();
      navigate(withQuery(state, query), 'results');
    } else if (action === 'close-detail') navigate(opened(state, null), 'keep');
    else if (action === 'clear') navigate(withoutFilters(state), 'results');
    else if (action === 'retry') retry?.();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.open !== null && detail.contains(document.activeElement)) navigate(opened(state, null), 'keep');
  });
  window.addEventListener('popstate', () => navigate(stateFromUrl(location.search), 'keep', false));
}

try {
  const config = readConfig();
  api = createApi({ baseUrl: config.apiUrl, publishableKey: config.publishableKey });
  wire();
  navigate(state, 'keep', false);
} catch (error) {
  showFailure(error instanceof ApiFailure ? error : new Error(error instanceof Error ? error.message : String(error)), null);
}
