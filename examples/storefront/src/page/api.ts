import type { FragranceDetail, Problem, SearchResponse, SimilarResponse, SuggestResponse } from '@fragrance/contracts';

/*
 * The four read calls the page makes, straight from the browser to the public API with the
 * publishable key (the API answers CORS for it). Types come from the API's contracts (the same
 * ones its OpenAPI document is generated from), so nothing here restates a response's shape.
 */

/** Why a call failed, in the terms the page shows them. */
export type FailureKind =
  /** 401/403: the key is unknown, expired or revoked, or not allowed from this page's origin. */
  | 'refused'
  /** 429: the quota or the per-visitor limit; `retryAfterSeconds` says how long to wait. */
  | 'busy'
  /** 400: the API refused a parameter (a hand-edited address). */
  | 'invalid'
  | 'not_found'
  /** 5xx: a fault on the API's side; worth trying again. */
  | 'unavailable'
  /** No answer the page may read: offline, the API down, or a refusal without CORS headers. */
  | 'network';

export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  readonly kind: FailureKind;
  readonly status: number | null;
  /** The problem's stable code (`unauthorized`, `forbidden`, `daily_quota_exceeded`, …) when it sent one. */
  readonly code: string | null;
  readonly detail: string | null;
  readonly requestId: string | null;
  readonly retryAfterSeconds: number | null;

  constructor(kind: FailureKind, status: number | null, problem: Partial<Problem> | null, message?: string) {
    super(message ?? problem?.detail ?? problem?.title ?? `HTTP ${status ?? 'failure'}`);
    this.kind = kind;
    this.status = status;
    this.code = typeof problem?.code === 'string' ? problem.code : null;
    this.detail = typeof problem?.detail === 'string' ? problem.detail : null;
    this.requestId = typeof problem?.request_id === 'string' ? problem.request_id : null;
    const retry = problem?.retry_after_seconds;
    this.retryAfterSeconds = typeof retry === 'number' && retry > 0 ? retry : null;
  }
}

export function kindOfStatus(status: number): FailureKind {
  if (status === 401 || status === 403) return 'refused';
  if (status === 429) return 'busy';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'unavailable';
  return 'invalid';
}

export interface StorefrontApi {
  search(params: URLSearchParams, signal?: AbortSignal): Promise<SearchResponse>;
  suggest(text: string, signal?: AbortSignal): Promise<SuggestResponse>;
  fragrance(id: string, signal?: AbortSignal): Promise<FragranceDetail>;
  similar(id: string, signal?: AbortSignal): Promise<SimilarResponse>;
}

export interface ApiOptions {
  /** The API's base address, ending in /v1. */
  baseUrl: string;
  /** A publishable key (`fcs_pk_…`): made to sit in a page, accepted only from its allowed origins. */
  publishableKey: string;
  fetch?: typeof fetch;
}

/** Suggestions asked for on each keystroke. */
export const SUGGEST_LIMIT = 8;
/** Similar fragrances shown under a detail card. */
export const SIMILAR_LIMIT = 6;

export function createApi({ baseUrl, publishableKey, fetch: fetcher = fetch }: ApiOptions): StorefrontApi {
  const base = baseUrl.replace(/\/+$/, '');
  async function get<T>(path: string, params: URLSearchParams | null, signal?: AbortSignal): Promise<T> {
    const query = params === null || params.size === 0 ? '' : `?${params.toString()}`;
    let response: Response;
    try {
      response = await fetcher(`${base}${path}${query}`, {
        headers: { authorization: `Bearer ${publishableKey}`, accept: 'application/json' },
        // Never cookies: the key is the only credential.
        credentials: 'omit',
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      // The browser hides why (offline, refused connection, an answer without CORS headers).
      throw new ApiFailure('network', null, null, error instanceof Error ? error.message : String(error));
    }
    const body: unknown = await response.json().catch(() => null);
    if (!response.ok) {
      const problem = body !== null && typeof body === 'object' ? (body as Partial<Problem>) : null;
      throw new ApiFailure(kindOfStatus(response.status), response.status, problem);
    }
    return body as T;
  }
  return {
    search: (params, signal) => get<SearchResponse>('/fragrances', params, signal),
    suggest: (text, signal) => get<SuggestResponse>('/suggest', new URLSearchParams({ q: text, limit: String(SUGGEST_LIMIT) }), signal),
    fragrance: (id, signal) => get<FragranceDetail>(`/fragrances/${encodeURIComponent(id)}`, null, signal),
    similar: (id, signal) =>
      get<SimilarResponse>(`/fragrances/${encodeURIComponent(id)}/similar`, new URLSearchParams({ limit: String(SIMILAR_LIMIT) }), signal),
  };
}

/** What the page says about a failure: a headline, the explanation, and whether trying again can help. */
export interface FailureMessage {
  title: string;
  text: string;
  retry: boolean;
}

/** A message a shopper (and the developer setting the page up) can act on; `origin` is the page's own. */
export function describeFailure(failure: unknown, origin: string): FailureMessage {
  if (!(failure instanceof ApiFailure)) {
    return { title: 'Something went wrong', text: failure instanceof Error ? failure.message : String(failure), retry: true };
  }
  const said = failure.detail ?? failure.message;
  const code = failure.code === null ? '' : ` ${failure.code}`;
  switch (failure.kind) {
    case 'refused':
      return {
        title: 'The catalogue API refused this storefront',
        text:
          `${said} (${failure.status ?? ''}${code}) This page's origin is ${origin}: its publishable key must list it ` +
          `(npm run ops -- keys create --publishable --origin ${origin} …), and must not be expired or revoked.`,
        retry: false,
      };
    case 'busy':
      return {
        title: 'Too many searches right now',
        text: `${said}${failure.retryAfterSeconds === null ? '' : ` Try again in ${failure.retryAfterSeconds} s.`}`,
        retry: true,
      };
    case 'invalid':
      return { title: 'The search could not be run', text: `${said} (${failure.status ?? ''}${code})`, retry: false };
    case 'not_found':
      return { title: 'Not found', text: 'This fragrance is no longer in the catalogue.', retry: false };
    case 'unavailable':
      return {
        title: 'The catalogue is unavailable',
        text: `${said} (${failure.status ?? ''}${code}) Please try again in a moment.`,
        retry: true,
      };
    case 'network':
      return {
        title: 'The catalogue API could not be reached',
        text:
          `No answer this page may read (${said}). The API may be down, or it refused ${origin} without CORS headers: ` +
          "check that this origin is one of the publishable key's allowed origins.",
        retry: true,
      };
  }
}
