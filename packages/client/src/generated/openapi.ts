// GENERATED FILE, do not edit: `pnpm --filter @fragrance/client generate` writes it with
// openapi-typescript from the OpenAPI document of packages/contracts (buildOpenApiDocument).
/* eslint-disable */
export interface paths {
  '/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The calling key's owner, quota and usage (not counted against the quota)
     * @description Takes no parameters: any query parameter is refused with 400.
     */
    get: operations['getMe'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The calling key's counted requests per day (not counted against the quota)
     * @description Daily counts from the same meter that enforces the quota and that billing reads, for up to 90 days back (today included; today's count grows as requests arrive). Days are quota days in the gateway's quota time zone. A range that ends after today, starts after it ends, or reaches further back than 90 days is refused with 400.
     */
    get: operations['getUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/usage/searches': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What the owner's keys searched for on one day (not counted against the quota)
     * @description Counted per key owner and quota day: the searches (`GET /fragrances` with a `query`, answered 2xx or 304), how many found nothing and how many were relaxed, and the most frequent query texts of each kind, folded and cut to 100 characters. Each list keeps a bounded number of texts per day, so a text searched rarely may be missing or undercounted; the three totals are exact. Kept for 35 days (today included); a day after today or further back is refused with 400.
     */
    get: operations['getSearchUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/fragrances': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search and filter the catalogue
     * @description Filters combine with AND. Results are ordered by `sort`: by default relevance (ties broken by popularity), or popularity without `query`. Page with limit/offset inside the first 10,000 hits, or with `cursor` at any depth. Unknown or repeated parameters are rejected with 400.
     */
    get: operations['searchFragrances'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/fragrances/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Stream every record (or every record changed since a time) in full detail, as NDJSON
     * @description One FragranceDetail per line, in (updated_at, id) order, from one consistent catalogue version; gzip-compressed when the request accepts it (Accept-Encoding: gzip). Billed up front as one counted request per 1000 records streamed (rounded up, at least one); refused with 429 `daily_quota_exceeded` before anything streams when the quota left cannot cover it. An interrupted export resumes with `after` = the `updated_at` and `id` of the last complete line, and is billed for the rest only.
     */
    get: operations['exportFragrances'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/fragrances/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One fragrance in full detail
     * @description Carries an `ETag`; send it back in `If-None-Match` to get 304 Not Modified while the record is unchanged.
     */
    get: operations['getFragrance'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/fragrances/{id}/similar': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Fragrances similar to this one, by shared notes and accords */
    get: operations['getSimilarFragrances'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/suggest': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * As-you-type suggestions: fragrances (with their brand), brands, perfumers, notes and accords
     * @description The last word of `q` matches as a prefix, every word may carry a typo, case and accents do not matter. Ranked by match quality, then popularity.
     */
    get: operations['suggest'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/brands': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Brands with their country, fragrance count and top accords
     * @description Most fragrances first (then by name); with `search`, best match first.
     */
    get: operations['listBrands'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/brands/{slug}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One brand with its counts, top accords and notes, perfumers and years */
    get: operations['getBrand'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/notes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The catalogue's notes with how many fragrances have each
     * @description Most fragrances first (then by name); with `search`, best match first.
     */
    get: operations['listNotes'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/accords': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The catalogue's accords with how many fragrances have each
     * @description Most fragrances first (then by name); with `search`, best match first.
     */
    get: operations['listAccords'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/perfumers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The catalogue's perfumers with how many fragrances have each
     * @description Most fragrances first (then by name); with `search`, best match first.
     */
    get: operations['listPerfumers'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This document */
    get: operations['getOpenApi'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    MeResponse: {
      /** @description Name of the key's owner. */
      owner: string;
      /** @description Daily request quota of this key. */
      rate_limit_per_day: number;
      /** @description Requests counted against the quota since the last reset. */
      used_today: number;
      /**
       * Format: date-time
       * @description When the daily quota next resets (ISO 8601, UTC).
       */
      quota_resets_at: string;
    };
    /** @description RFC 9457 problem details (application/problem+json). */
    Problem: {
      /** @description URI identifying the problem type. */
      type: string;
      title: string;
      status: number;
      detail?: string;
      instance?: string;
      /**
       * @description Stable machine-readable error code.
       * @example invalid_parameter
       * @enum {string}
       */
      code:
        | 'bad_request'
        | 'invalid_parameter'
        | 'invalid_cursor'
        | 'invalid_path'
        | 'unauthorized'
        | 'invalid_token'
        | 'key_expired'
        | 'key_rolled'
        | 'forbidden'
        | 'insufficient_scope'
        | 'endpoint_not_allowed'
        | 'origin_not_allowed'
        | 'secret_key_in_browser'
        | 'not_found'
        | 'method_not_allowed'
        | 'payload_too_large'
        | 'rate_limited'
        | 'daily_quota_exceeded'
        | 'burst_limit_exceeded'
        | 'visitor_limit_exceeded'
        | 'mcp_rate_limited'
        | 'registration_rate_limited'
        | 'internal_error'
        | 'upstream_error'
        | 'service_unavailable'
        | 'upstream_timeout';
      request_id?: string;
      invalid_params?: components['schemas']['InvalidParam'][];
      /** @description Present on 429: whole seconds until a retry can succeed. */
      retry_after_seconds?: number;
    };
    InvalidParam: {
      /** @description Parameter (query, path or body field) that was rejected. */
      name: string;
      /** @description Why it was rejected. */
      reason: string;
    };
    UsageResponse: {
      /**
       * @description Public id of the key counted (the calling key, or `key_id`), as on invoices; never the key itself.
       * @example key_3f9a1c2b4d5e6f70
       */
      key_id: string;
      /** @description Name of the key's owner. */
      owner: string;
      /**
       * @description IANA time zone whose midnight starts a quota day.
       * @example UTC
       */
      time_zone: string;
      /** Format: date */
      from: string;
      /** Format: date */
      to: string;
      /** @description Sum of `requests` over the days listed. */
      total: number;
      /** @description Every day from `from` to `to`, oldest first; days without traffic are 0. */
      days: components['schemas']['UsageDay'][];
    };
    UsageDay: {
      /**
       * Format: date
       * @description Quota day (YYYY-MM-DD in the quota time zone).
       */
      date: string;
      /** @description Counted requests that day: what the quota was charged and what is billed (an export counts one per 1,000 records). */
      requests: number;
    };
    SearchUsageResponse: {
      /** @description Name of the key's owner: the searches of all the owner's keys are counted together. */
      owner: string;
      /**
       * @description IANA time zone whose midnight starts a quota day.
       * @example UTC
       */
      time_zone: string;
      /** Format: date */
      day: string;
      /** @description Searches with a `query` answered that day (2xx or 304; errors are not counted). */
      searches: number;
      /** @description Of those, searches that found nothing (`total` 0). */
      zero_results: number;
      /** @description Of those, searches answered by a relaxed query (some words dropped). */
      relaxed: number;
      /** @description Most queries listed per kind. */
      limit: number;
      /** @description The most frequent query texts, most frequent first. */
      top_queries: components['schemas']['QueryCount'][];
      /** @description The most frequent query texts that found nothing. */
      zero_result_queries: components['schemas']['QueryCount'][];
      /** @description The most frequent query texts that were relaxed to find something. */
      relaxed_queries: components['schemas']['QueryCount'][];
    };
    QueryCount: {
      /**
       * @description The query text as counted: folded (lower case, accents and punctuation removed, spaces collapsed) and cut to 100 characters.
       * @example ysl cinema
       */
      query: string;
      /** @description Searches with this text that day (of the kind listed). */
      count: number;
    };
    SearchResponse: {
      data: components['schemas']['SearchHit'][];
      /** @description Exact number of matching fragrances. */
      total: number;
      limit: number;
      /** @description Offset of this page; 0 when paging by cursor. */
      offset: number;
      /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
      next_cursor: string | null;
      facets?: components['schemas']['Facets'];
      did_you_mean?: components['schemas']['DidYouMean'];
      relaxed?: components['schemas']['Relaxed'];
      /**
       * @description The mode that ran, when the query had text: lexical also when semantic or hybrid was asked for but does not apply (another sort, a deeper offset) or record vectors are not computed yet. In semantic mode `total` is the number of nearest records found (at most 100, with the filters); in hybrid mode it counts the lexical matches plus those nearest records, and facets count the same set, while pages reach the best 100 of each side.
       * @enum {string}
       */
      search_mode?: 'lexical' | 'semantic' | 'hybrid';
    };
    SearchHit: {
      /**
       * Format: uuid
       * @description UUID of the fragrance_master record.
       */
      id: string;
      name: string;
      brand: string;
      /** @description Brand's country of origin, ISO 3166-1 alpha-2. */
      country: string;
      concentration: components['schemas']['Concentration'];
      gender?: components['schemas']['Gender'];
      year_released: number | null;
      rating: components['schemas']['Rating'];
      /** @description Strongest accords, at most five. */
      main_accords: string[];
      available_in_au: boolean;
      highlight?: components['schemas']['Highlight'];
    };
    /** @enum {string} */
    Concentration: 'Extrait de Parfum' | 'Parfum' | 'Eau de Parfum' | 'Eau de Toilette' | 'Eau de Cologne' | 'Eau Fraîche';
    /**
     * @description Who the fragrance is marketed to, as the source catalogue records it; absent when the source does not say.
     * @enum {string}
     */
    Gender: 'women' | 'men' | 'unisex';
    Rating: {
      /** @description Mean rating out of 5; null without votes. */
      average: number | null;
      /** @description Number of votes. */
      count: number;
    };
    /** @description Where the query (with its synonyms, typos and the last word as a prefix) matched this fragrance: each field that matched lists its matching values with the word offsets. Fields without a match are absent. Matching is case- and accent-insensitive, so a match may differ from the query in spelling. */
    Highlight: {
      name?: components['schemas']['HighlightFragment'][];
      brand?: components['schemas']['HighlightFragment'][];
      perfumers?: components['schemas']['HighlightFragment'][];
      notes?: components['schemas']['HighlightFragment'][];
      accords?: components['schemas']['HighlightFragment'][];
    };
    HighlightFragment: {
      /** @description The whole value as plain text; render it escaped. */
      text: string;
      /** @description Matched words, in order, not overlapping. */
      matches: components['schemas']['MatchSpan'][];
    };
    MatchSpan: {
      /** @description Offset of the first matched character, in UTF-16 code units. */
      start: number;
      /** @description Offset just past the last matched character, in UTF-16 code units. */
      end: number;
    };
    /** @description Counts over every hit of the search (not only this page). */
    Facets: {
      /** @description Top 20 brands. */
      brand?: components['schemas']['FacetBucket'][];
      concentration?: components['schemas']['FacetBucket'][];
      /** @description Top 30 accords. */
      accord?: components['schemas']['FacetBucket'][];
      /** @description Decades as "1990s", oldest first. */
      decade?: components['schemas']['FacetBucket'][];
      /** @description Top 30 notes (folded spelling, usable as `note`). */
      note?: components['schemas']['FacetBucket'][];
      season?: components['schemas']['FacetBucket'][];
      occasion?: components['schemas']['FacetBucket'][];
      /** @description Fragrances without a gender are not counted. */
      gender?: components['schemas']['FacetBucket'][];
    };
    FacetBucket: {
      value: string;
      count: number;
    };
    /** @description Present when the query found little (under 3 hits) and a close spelling finds more. */
    DidYouMean: {
      /** @description The query respelled with words the catalogue knows. */
      query: string;
      /** @description How many fragrances it finds (with the same filters). */
      total: number;
    };
    /** @description Present when every word of the query together found nothing and a looser query answered instead: first without words naming a concentration, gender, product type or size ("eau de toilette", "for men", "perfume", "100ml"), then without words no record has, then without filler words ("a", "for"), then without the rarest words, one at a time, until something is found (never without every word). `total` and `data` are the looser query's. */
    Relaxed: {
      /** @description The query words left out (folded: lower case, no accents or punctuation), in the order typed. */
      dropped: string[];
    };
    FragranceDetail: {
      /**
       * Format: uuid
       * @description UUID of the fragrance_master record.
       */
      id: string;
      name: string;
      brand: string;
      /** @description Brand's country of origin, ISO 3166-1 alpha-2. */
      country: string;
      concentration: components['schemas']['Concentration'];
      gender?: components['schemas']['Gender'];
      year_released: number | null;
      rating: components['schemas']['Rating'];
      /** @description Strongest accords, at most five. */
      main_accords: string[];
      available_in_au: boolean;
      description: string | null;
      notes: components['schemas']['Notes'];
      /** @description All accords, strongest first. */
      accords: string[];
      perfumers: string[];
      /** @description Seasons it suits (enrichment). */
      seasons: string[];
      /** @description Occasions it suits (enrichment). */
      occasions: string[];
      /** @description Distinct sources of this record. */
      provenance_tags: components['schemas']['ProvenanceSource'][];
      provenance: components['schemas']['ProvenanceEntry'][];
      au_availability: components['schemas']['AuAvailability'];
      au_offers: components['schemas']['AuOffer'][];
      /** Format: date-time */
      updated_at: string;
    };
    /** @description Notes of the fragrance pyramid. */
    Notes: {
      top: string[];
      heart: string[];
      base: string[];
    };
    /** @enum {string} */
    ProvenanceSource: 'community_taxonomy' | 'operator_curated' | 'ai_enriched' | 'au_retailer_scrape';
    ProvenanceEntry: {
      source: components['schemas']['ProvenanceSource'];
      /** @description Record fields this source supplied. */
      fields: string[];
      /**
       * Format: date-time
       * @description When the source supplied them.
       */
      recorded_at: string;
      /** @description Where an imported record came from: the file layout and the source page, e.g. "fragrantica-csv https://…". */
      origin?: string;
    };
    AuAvailability: {
      available: boolean;
      price_min_aud: number | null;
      price_max_aud: number | null;
      /** @description Last time AU retailers were checked. */
      checked_at: string | null;
    };
    /** @description An offer seen at an Australian retailer. */
    AuOffer: {
      retailer: string;
      /** Format: uri */
      url: string;
      price_aud: number;
      size_ml: number;
      in_stock: boolean;
      /** Format: date-time */
      seen_at: string;
    };
    SimilarResponse: {
      /** @description Closest first, one per house before any house repeats; each with its reasons and closeness. */
      data: components['schemas']['SimilarFragrance'][];
      limit: number;
    };
    SimilarFragrance: {
      /**
       * Format: uuid
       * @description UUID of the fragrance_master record.
       */
      id: string;
      name: string;
      brand: string;
      /** @description Brand's country of origin, ISO 3166-1 alpha-2. */
      country: string;
      concentration: components['schemas']['Concentration'];
      gender?: components['schemas']['Gender'];
      year_released: number | null;
      rating: components['schemas']['Rating'];
      /** @description Strongest accords, at most five. */
      main_accords: string[];
      available_in_au: boolean;
      /** @description How alike the two are, 0..1, comparable across requests: 0.7 × note/accord overlap + 0.3 × vector similarity when both records have a vector, else the overlap alone (docs/search.md). */
      closeness: number;
      reasons: components['schemas']['SimilarReasons'];
    };
    SimilarReasons: {
      /** @description Notes both records list, by the source's tier (as the source spells them). */
      shared_notes: {
        /** @description Shared notes in the source's top notes, rarest first. */
        top: string[];
        /** @description Shared notes in the source's heart notes, rarest first. */
        heart: string[];
        /** @description Shared notes in the source's base notes, rarest first. */
        base: string[];
      };
      /** @description Main accords of the source the alternative also has, rarest first. */
      shared_main_accords: string[];
      /** @description Other accords both have, rarest first. */
      shared_accords: string[];
      /** @description The rarest shared notes and accords across the catalogue (at most 3), rarest first: what makes the likeness. */
      distinctive: string[];
      /** @description What the alternative adds to the source. */
      adds: {
        /** @description Notes the alternative has and the source lacks (at most 5). */
        notes: string[];
        /** @description Accords the alternative has and the source lacks (at most 5). */
        accords: string[];
      };
      /** @description Closeness of the two records' descriptions by their sentence vectors, 0..1 (cosine mapped as in closeness); null when either has no vector. */
      vector_similarity: number | null;
      /** @description One sentence a person can read: shared notes and accords, what it adds. Never claims the two are identical. */
      summary: string;
    };
    SuggestResponse: {
      /** @description Best first: match quality, then popularity (votes of the fragrance, or of all fragrances of the brand, note, …). */
      data: components['schemas']['Suggestion'][];
      limit: number;
    };
    Suggestion: {
      /** @enum {string} */
      type: 'fragrance' | 'brand' | 'perfumer' | 'note' | 'accord';
      /** @description What to show: the name (a fragrance: its name alone, its brand in `brand`). */
      text: string;
      /**
       * Format: uuid
       * @description A fragrance: its id (GET /fragrances/{id}).
       */
      id?: string;
      /** @description A fragrance: its brand's name. */
      brand?: string;
      /** @description A brand, perfumer, note or accord: its slug (GET /brands/{slug}; for the others, their folded name). */
      slug?: string;
      /** @description A brand, perfumer, note or accord: how many fragrances have it. */
      count?: number;
    };
    BrandList: {
      data: components['schemas']['Brand'][];
      /** @description Exact number of matching items. */
      total: number;
      limit: number;
      offset: number;
    };
    Brand: {
      /** @description Path segment of GET /brands/{slug}. */
      slug: string;
      name: string;
      /** @description ISO 3166-1 alpha-2 country of origin. */
      country: string;
      fragrance_count: number;
      /** @description Its most frequent accords, at most five, most frequent first. */
      top_accords: string[];
    };
    BrandDetail: {
      /** @description Path segment of GET /brands/{slug}. */
      slug: string;
      name: string;
      /** @description ISO 3166-1 alpha-2 country of origin. */
      country: string;
      fragrance_count: number;
      /** @description Its most frequent accords, at most five, most frequent first. */
      top_accords: string[];
      /** @description Its most frequent notes (folded spelling), at most ten. */
      top_notes: string[];
      /** @description Perfumers of its fragrances, most prolific first, at most ten. */
      perfumers: string[];
      /** @description Earliest release year of its fragrances. */
      year_first: number | null;
      /** @description Latest release year of its fragrances. */
      year_last: number | null;
      /** @description Votes over all its fragrances. */
      votes: number;
    };
    TermList: {
      data: components['schemas']['Term'][];
      /** @description Exact number of matching items. */
      total: number;
      limit: number;
      offset: number;
    };
    /** @description A note, accord or perfumer and how many fragrances have it. */
    Term: {
      /** @description Folded name with hyphens; usable as the `note`, `accord` or `perfumer` filter of /fragrances. */
      slug: string;
      name: string;
      fragrance_count: number;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getMe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Key status. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MeResponse'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getUsage: {
    parameters: {
      query?: {
        /** @description First quota day to include (YYYY-MM-DD in the quota time zone); at most 89 days before today. Default: 29 days before `to` (or the oldest day kept, if later). */
        from?: string;
        /** @description Last quota day to include (YYYY-MM-DD in the quota time zone), not after today and not before `from`. Default: today. */
        to?: string;
        /** @description Another key of the same owner (e.g. your publishable key, which cannot call this endpoint itself): its counted requests instead of the calling key's. */
        key_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Requests per day, oldest first. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageResponse'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getSearchUsage: {
    parameters: {
      query?: {
        /** @description Quota day (YYYY-MM-DD in the quota time zone), not after today and at most 34 days before it. Default: today. */
        day?: string;
        /** @description Queries listed per kind, 1..100; default 20. */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The day's search counts. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SearchUsageResponse'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  searchFragrances: {
    parameters: {
      query?: {
        /** @description Full text over name (boosted), brand, perfumers, notes and accords. Case- and accent-insensitive, typo-tolerant, the last word matches as a prefix. Empty means no text condition. */
        query?: string;
        /** @description Exact brand name, case- and accent-insensitive. */
        brand?: string;
        /** @description One of Extrait de Parfum, Parfum, Eau de Parfum, Eau de Toilette, Eau de Cologne, Eau Fraîche; case-insensitive; EDP, EDT, EDC, "extrait" and "cologne" accepted. */
        concentration?: 'Extrait de Parfum' | 'Parfum' | 'Eau de Parfum' | 'Eau de Toilette' | 'Eau de Cologne' | 'Eau Fraîche';
        /** @description Brand's country of origin, ISO 3166-1 alpha-2, case-insensitive. */
        country?: string;
        /** @description Earliest year released (inclusive). */
        year_from?: number;
        /** @description Latest year released (inclusive). */
        year_to?: number;
        /** @description Page size, 1..100; default 20. */
        limit?: number;
        /** @description Hits to skip; default 0. offset + limit may not exceed 10000: page deeper with cursor. */
        offset?: number;
        /** @description Opaque `next_cursor` of the previous page: returns the page after it (search_after), at any depth. Send the same query and filters with it; not combinable with offset. */
        cursor?: string;
        /** @description Comma-separated notes the fragrance must all have (any of top, heart, base); case- and accent-insensitive. */
        note?: string[];
        /** @description Comma-separated notes the fragrance must have none of. */
        exclude_note?: string[];
        /** @description Comma-separated accords the fragrance must all have. */
        accord?: string[];
        /** @description Comma-separated accords the fragrance must have none of. */
        exclude_accord?: string[];
        /** @description Only fragrances (not) available at an Australian retailer. */
        available_in_au?: boolean;
        /** @description Exact perfumer name, case-, accent- and punctuation-insensitive. */
        perfumer?: string;
        /** @description Comma-separated seasons the fragrance must all suit: spring, summer, autumn, winter. */
        season?: ('spring' | 'summer' | 'autumn' | 'winter')[];
        /** @description Comma-separated occasions the fragrance must all suit: daily, office, leisure, sport, evening, date night, formal. */
        occasion?: ('daily' | 'office' | 'leisure' | 'sport' | 'evening' | 'date night' | 'formal')[];
        /** @description Comma-separated genders, any of which the fragrance is marketed to: women, men, unisex. Fragrances whose catalogue records no gender never match. */
        gender?: ('women' | 'men' | 'unisex')[];
        /** @description Lowest average rating (0–5, at most two decimals); records without votes never match. */
        rating_min?: number;
        /** @description Fewest votes (rating count). */
        votes_min?: number;
        /** @description With `true`, each item carries `highlight`: where the query matched its name, brand, perfumers, notes and accords. */
        highlight?: boolean;
        /** @description Order of the hits. `relevance` (default with `query`): best match first, ties by votes; without `query` every hit matches equally, so it orders as `votes`. `rating`: highest average first, unrated last. `votes` (default without `query`): most votes first. `newest` / `oldest`: by year released, unknown years last. `name`: A–Z, case- and accent-insensitive. `updated`: least recently changed first, for mirroring with `updated_since`. Every order ends in the record id, so it is total and cursors work with each. */
        sort?: 'relevance' | 'rating' | 'votes' | 'newest' | 'oldest' | 'name' | 'updated';
        /** @description Only records changed at or after this instant (RFC 3339 with a time zone, e.g. 2026-01-31T00:00:00Z): every ingest that changes a record and every enrichment run that changes one moves its `updated_at`. With `sort=updated` and `cursor`, a client mirrors the catalogue: keep the greatest `updated_at` seen and start the next sync from it. */
        updated_since?: string;
        /** @description How `query` matches: `lexical` (every word matches name, brand, perfumers, notes or accords), `semantic` (nearest records by meaning: describe a scent, e.g. "fresh citrus for summer at the office"; filters apply inside the search) or `hybrid` (both, fused by reciprocal rank; name and brand matches first). Default hybrid. Semantic and hybrid apply to a text query sorted by relevance and reach the best 100 matches of each side; otherwise the search is lexical. The response's `search_mode` says which ran. */
        search_mode?: 'lexical' | 'semantic' | 'hybrid';
        /** @description Comma-separated facet counts to return: brand, concentration, accord, decade, note, season, occasion, gender. */
        facets?: ('brand' | 'concentration' | 'accord' | 'decade' | 'note' | 'season' | 'occasion' | 'gender')[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of summaries. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SearchResponse'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated (`code: invalid_parameter`; `invalid_params` names each one), or the `cursor` alone is not one this API issued for this query: edited, signed with a retired key, malformed or from another query (`code: invalid_cursor`; request the first page again without it). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  exportFragrances: {
    parameters: {
      query?: {
        /** @description Only records changed at or after this instant (RFC 3339 with a time zone); all records without it. */
        updated_since?: string;
        /** @description Resume an interrupted export: `<updated_at>,<id>` of the last complete line received. The export continues with the records after it in (updated_at, id) order. */
        after?: string;
      };
      header?: {
        /** @description gzip for a compressed stream. */
        'Accept-Encoding'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description NDJSON stream of FragranceDetail records. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          /** @description Records this export streams. */
          'Export-Records': number;
          /** @description Counted requests it was billed as. */
          'Export-Requests': number;
          [name: string]: unknown;
        };
        content: {
          'application/x-ndjson': components['schemas']['FragranceDetail'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota or burst limit exceeded, or the quota left cannot cover the export (one request per 1000 records); see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getFragrance: {
    parameters: {
      query?: never;
      header?: {
        /** @description An ETag from an earlier response. */
        'If-None-Match'?: string;
      };
      path: {
        /** @description UUID of the fragrance_master record. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The record. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          /** @description Strong validator of this record version. */
          ETag: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['FragranceDetail'];
        };
      };
      /** @description Not modified since the ETag in If-None-Match. */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description No fragrance has this id. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getSimilarFragrances: {
    parameters: {
      query?: {
        /** @description How many, 1..50; default 10. */
        limit?: number;
        /** @description With `true`, only other houses' fragrances (alternatives, "dupes"): never the source's brand. */
        other_brands?: boolean;
        /** @description With `true`, only fragrances available at an Australian retailer (`false`: only those that are not). */
        available_in_au?: boolean;
        /** @description Only fragrances whose cheapest Australian offer (`au_availability.price_min_aud`) is at most this many AUD; so only fragrances available in Australia (with `available_in_au=false`, none). */
        max_price_aud?: number;
        /** @description One of Extrait de Parfum, Parfum, Eau de Parfum, Eau de Toilette, Eau de Cologne, Eau Fraîche; case-insensitive; EDP, EDT, EDC, "extrait" and "cologne" accepted. */
        concentration?: 'Extrait de Parfum' | 'Parfum' | 'Eau de Parfum' | 'Eau de Toilette' | 'Eau de Cologne' | 'Eau Fraîche';
        /** @description Comma-separated genders, any of which the fragrance is marketed to: women, men, unisex. Fragrances whose catalogue records no gender never match. */
        gender?: ('women' | 'men' | 'unisex')[];
        /** @description Earliest year released (inclusive). */
        year_from?: number;
        /** @description Latest year released (inclusive). */
        year_to?: number;
        /** @description With `true`, nothing of the source's own line: no record of its house whose name is the line's name or starts with it ("Sauvage" leaves out "Sauvage Elixir"; "Sauvage Elixir" leaves out "Sauvage"). */
        exclude_flankers?: boolean;
      };
      header?: never;
      path: {
        /** @description UUID of the fragrance_master record. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Most similar first. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SimilarResponse'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description No fragrance has this id. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  suggest: {
    parameters: {
      query: {
        /** @description What the user has typed so far; the last word matches as a prefix. Typos and accents are tolerated. */
        q: string;
        /** @description Comma-separated kinds of suggestion to return: fragrance, brand, perfumer, note, accord (default all). */
        types?: ('fragrance' | 'brand' | 'perfumer' | 'note' | 'accord')[];
        /** @description How many suggestions, 1..20; default 8. */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Suggestions, best first. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SuggestResponse'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listBrands: {
    parameters: {
      query?: {
        /** @description Only names matching this text (every word, the last as a prefix; case-, accent- and typo-tolerant), best match first. */
        search?: string;
        /** @description Page size, 1..100; default 20. */
        limit?: number;
        /** @description Items to skip; default 0. offset + limit may not exceed 10000. */
        offset?: number;
        /** @description Only brands from this country (ISO 3166-1 alpha-2, case-insensitive). */
        country?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of brands. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BrandList'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getBrand: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The brand slug from GET /brands. */
        slug: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The brand. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BrandDetail'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description No brand has this slug. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listNotes: {
    parameters: {
      query?: {
        /** @description Only names matching this text (every word, the last as a prefix; case-, accent- and typo-tolerant), best match first. */
        search?: string;
        /** @description Page size, 1..100; default 20. */
        limit?: number;
        /** @description Items to skip; default 0. offset + limit may not exceed 10000. */
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of notes. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TermList'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listAccords: {
    parameters: {
      query?: {
        /** @description Only names matching this text (every word, the last as a prefix; case-, accent- and typo-tolerant), best match first. */
        search?: string;
        /** @description Page size, 1..100; default 20. */
        limit?: number;
        /** @description Items to skip; default 0. offset + limit may not exceed 10000. */
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of accords. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TermList'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  listPerfumers: {
    parameters: {
      query?: {
        /** @description Only names matching this text (every word, the last as a prefix; case-, accent- and typo-tolerant), best match first. */
        search?: string;
        /** @description Page size, 1..100; default 20. */
        limit?: number;
        /** @description Items to skip; default 0. offset + limit may not exceed 10000. */
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of perfumers. */
      200: {
        headers: {
          /** @description Daily quota of the key. */
          'RateLimit-Limit': number;
          /** @description Requests left today. */
          'RateLimit-Remaining': number;
          /** @description Seconds until the quota resets. */
          'RateLimit-Reset': number;
          /** @description The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`. */
          'RateLimit-Policy': string;
          /** @description What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`. */
          RateLimit: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TermList'];
        };
      };
      /** @description A parameter is invalid, unknown or repeated; `invalid_params` names each one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor). */
      401: {
        headers: {
          'WWW-Authenticate': string;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`. */
      429: {
        headers: {
          /** @description Whole seconds to wait. */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getOpenApi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
    };
  };
}
