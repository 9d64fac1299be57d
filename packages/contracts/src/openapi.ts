import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathItemObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
  type ZodOpenApiSecuritySchemeObject,
} from 'zod-openapi';
import { BrandDetail, BrandList, BrandSlugParams, BrandsQuery, SuggestQuery, SuggestResponse, TermList, TermsQuery } from './discovery.ts';
import { FragranceDetail } from './fragrance.ts';
import { API_INTRODUCTION } from './introduction.ts';
import { MeResponse } from './me.ts';
import { PROBLEM_CONTENT_TYPE, Problem } from './problem.ts';
import { FragranceIdParams, SearchQuery, SearchResponse, SimilarQuery, SimilarResponse } from './search.ts';
import { EXPORT_RECORDS_PER_REQUEST, ExportQuery } from './sync.ts';
import { USAGE_MAX_DAYS, UsageQuery, UsageResponse } from './usage.ts';
import { SEARCH_QUERY_MAX_CHARS, SEARCH_USAGE_MAX_DAYS, SearchUsageQuery, SearchUsageResponse } from './usage-searches.ts';

const rateLimitHeaders = {
  'RateLimit-Limit': z.number().int().meta({ description: 'Daily quota of the key.' }),
  'RateLimit-Remaining': z.number().int().meta({ description: 'Requests left today.' }),
  'RateLimit-Reset': z.number().int().meta({ description: 'Seconds until the quota resets.' }),
  // The IETF RateLimit header fields draft (draft-ietf-httpapi-ratelimit-headers), beside the three above.
  'RateLimit-Policy': z.string().meta({
    description: 'The daily quota as a policy of the IETF RateLimit draft: `"daily";q=<quota>;w=86400`.',
    examples: ['"daily";q=10000;w=86400'],
  }),
  RateLimit: z.string().meta({
    description: 'What is left of that policy (IETF RateLimit draft): `"daily";r=<remaining>;t=<seconds until the reset>`.',
    examples: ['"daily";r=9958;t=3600'],
  }),
};

const problem = (description: string, headers: z.ZodRawShape = {}): ZodOpenApiResponseObject => ({
  description,
  headers: z.object(headers),
  content: { [PROBLEM_CONTENT_TYPE]: { schema: Problem } },
});

const errors = {
  '400': problem('A parameter is invalid, unknown or repeated; `invalid_params` names each one.'),
  '401': problem(
    'Missing, malformed, unknown or revoked API key (`unauthorized`), a key past its expiry (`key_expired`), or a rolled key after its grace period (`key_rolled`; `detail` names its successor).',
    { 'WWW-Authenticate': z.string().meta({ examples: ['Bearer'] }) },
  ),
  '403': problem(
    'A valid key that may not make this request, not counted: a publishable key off the read endpoints (`endpoint_not_allowed`) or from a page origin it does not allow, or with none (`origin_not_allowed`); a secret key sent from a web page (`secret_key_in_browser`: roll it); a secret key whose scopes do not include this endpoint (`insufficient_scope`).',
  ),
  '429': problem('Daily quota, burst limit or (publishable keys) the per-visitor limit exceeded; see `retry_after_seconds`.', {
    'Retry-After': z.number().int().meta({ description: 'Whole seconds to wait.' }),
  }),
};

const ok = (description: string, schema: z.ZodType, extraHeaders: z.ZodRawShape = {}): ZodOpenApiResponseObject => ({
  description,
  headers: z.object({ ...rateLimitHeaders, ...extraHeaders }),
  content: { 'application/json': { schema } },
});

/** A GET path answering 200 with `schema` (`answer` describes it), else one of `others`. */
const getPath = (
  operation: Omit<ZodOpenApiOperationObject, 'responses'>,
  answer: string,
  schema: z.ZodType,
  others: ZodOpenApiResponsesObject = errors,
): ZodOpenApiPathItemObject => ({ get: { ...operation, responses: { '200': ok(answer, schema), ...others } } });

/** The calling key's own endpoints are not counted against its quota: no 429. */
const selfErrors = { '400': errors['400'], '401': errors['401'], '403': errors['403'] };

const apiKeyScheme: ZodOpenApiSecuritySchemeObject = {
  type: 'http',
  scheme: 'bearer',
  description:
    'API key issued by the operator, of one of two kinds. Secret (`fcs_…`): for servers; reaches what its scopes allow (`search`, `export`, `usage`; all by default) and `/me`; refused with 403 `secret_key_in_browser` when sent from a web page. Publishable (`fcs_pk_…`): for web pages and apps; reaches the read endpoints only (search, facets, suggest, detail, similar, brands, notes, accords, perfumers), only from its allowed page origins (`Origin`, else `Referer`), with a per-visitor rate limit and a largest `limit`.',
};

/**
 * The OpenAPI 3.1 document of the data API, generated from the same zod schemas that validate
 * requests and responses. `serverUrl` is the public `{base_url}` (ending in /v1).
 */
export function buildOpenApiDocument(options: { serverUrl?: string; version?: string } = {}) {
  const { serverUrl = 'http://127.0.0.1:8080/v1', version = '1.0.0-beta' } = options;
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Fragrance Catalogue API',
      version,
      description: API_INTRODUCTION,
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    components: { securitySchemes: { apiKey: apiKeyScheme } },
    // The order of the paths is the order of the document (and of the generated client).
    paths: { ...keyPaths(), ...fragrancePaths(), ...discoveryPaths(), '/openapi.json': openApiPath() },
  });
}

/** What the calling key may learn about itself: not counted against its quota. */
function keyPaths(): ZodOpenApiPathsObject {
  return {
    '/me': getPath(
      {
        operationId: 'getMe',
        summary: "The calling key's owner, quota and usage (not counted against the quota)",
        description: 'Takes no parameters: any query parameter is refused with 400.',
      },
      'Key status.',
      MeResponse,
      selfErrors,
    ),
    '/usage': getPath(
      {
        operationId: 'getUsage',
        summary: "The calling key's counted requests per day (not counted against the quota)",
        description: `Daily counts from the same meter that enforces the quota and that billing reads, for up to ${USAGE_MAX_DAYS} days back (today included; today's count grows as requests arrive). Days are quota days in the gateway's quota time zone. A range that ends after today, starts after it ends, or reaches further back than ${USAGE_MAX_DAYS} days is refused with 400.`,
        requestParams: { query: UsageQuery },
      },
      'Requests per day, oldest first.',
      UsageResponse,
      selfErrors,
    ),
    '/usage/searches': getPath(
      {
        operationId: 'getSearchUsage',
        summary: "What the owner's keys searched for on one day (not counted against the quota)",
        description: `Counted per key owner and quota day: the searches (\`GET /fragrances\` with a \`query\`, answered 2xx or 304), how many found nothing and how many were relaxed, and the most frequent query texts of each kind, folded and cut to ${SEARCH_QUERY_MAX_CHARS} characters. Each list keeps a bounded number of texts per day, so a text searched rarely may be missing or undercounted; the three totals are exact. Kept for ${SEARCH_USAGE_MAX_DAYS} days (today included); a day after today or further back is refused with 400.`,
        requestParams: { query: SearchUsageQuery },
      },
      "The day's search counts.",
      SearchUsageResponse,
      selfErrors,
    ),
  };
}

/** Search, export, detail and similar: the fragrance records themselves. */
function fragrancePaths(): ZodOpenApiPathsObject {
  return {
    '/fragrances': {
      get: {
        operationId: 'searchFragrances',
        summary: 'Search and filter the catalogue',
        description:
          'Filters combine with AND. Results are ordered by `sort`: by default relevance (ties broken by popularity), or popularity without `query`. Page with limit/offset inside the first 10,000 hits, or with `cursor` at any depth. Unknown or repeated parameters are rejected with 400.',
        requestParams: { query: SearchQuery },
        responses: {
          '200': ok('One page of summaries.', SearchResponse),
          ...errors,
          '400': problem(
            'A parameter is invalid, unknown or repeated (`code: invalid_parameter`; `invalid_params` names each one), or the `cursor` alone is not one this API issued for this query: edited, signed with a retired key, malformed or from another query (`code: invalid_cursor`; request the first page again without it).',
          ),
        },
      },
    },
    '/fragrances/export': { get: exportOperation() },
    '/fragrances/{id}': {
      get: {
        operationId: 'getFragrance',
        summary: 'One fragrance in full detail',
        description: 'Carries an `ETag`; send it back in `If-None-Match` to get 304 Not Modified while the record is unchanged.',
        requestParams: {
          path: FragranceIdParams,
          header: z.object({ 'If-None-Match': z.string().optional().meta({ description: 'An ETag from an earlier response.' }) }),
        },
        responses: {
          '200': ok('The record.', FragranceDetail, {
            ETag: z.string().meta({ description: 'Strong validator of this record version.' }),
          }),
          '304': { description: 'Not modified since the ETag in If-None-Match.' },
          ...errors,
          '404': problem('No fragrance has this id.'),
        },
      },
    },
    '/fragrances/{id}/similar': getPath(
      {
        operationId: 'getSimilarFragrances',
        summary: 'Fragrances similar to this one, by shared notes and accords',
        requestParams: { path: FragranceIdParams, query: SimilarQuery },
      },
      'Most similar first.',
      SimilarResponse,
      { ...errors, '404': problem('No fragrance has this id.') },
    ),
  };
}

/** The NDJSON export: its own content type, billing headers and quota refusal. */
function exportOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'exportFragrances',
    summary: 'Stream every record (or every record changed since a time) in full detail, as NDJSON',
    description: `One FragranceDetail per line, in (updated_at, id) order, from one consistent catalogue version; gzip-compressed when the request accepts it (Accept-Encoding: gzip). Billed up front as one counted request per ${EXPORT_RECORDS_PER_REQUEST} records streamed (rounded up, at least one); refused with 429 \`daily_quota_exceeded\` before anything streams when the quota left cannot cover it. An interrupted export resumes with \`after\` = the \`updated_at\` and \`id\` of the last complete line, and is billed for the rest only.`,
    requestParams: {
      query: ExportQuery,
      header: z.object({ 'Accept-Encoding': z.string().optional().meta({ description: 'gzip for a compressed stream.' }) }),
    },
    responses: {
      '200': {
        description: 'NDJSON stream of FragranceDetail records.',
        headers: z.object({
          ...rateLimitHeaders,
          'Export-Records': z.number().int().meta({ description: 'Records this export streams.' }),
          'Export-Requests': z.number().int().meta({ description: 'Counted requests it was billed as.' }),
        }),
        content: { 'application/x-ndjson': { schema: FragranceDetail } },
      },
      ...errors,
      '429': problem(
        `Daily quota or burst limit exceeded, or the quota left cannot cover the export (one request per ${EXPORT_RECORDS_PER_REQUEST} records); see \`retry_after_seconds\`.`,
        { 'Retry-After': z.number().int().meta({ description: 'Whole seconds to wait.' }) },
      ),
    },
  };
}

const BROWSE_ORDER = 'Most fragrances first (then by name); with `search`, best match first.';

/** Suggestions, brands and the note, accord and perfumer lists. */
function discoveryPaths(): ZodOpenApiPathsObject {
  return {
    '/suggest': getPath(
      {
        operationId: 'suggest',
        summary: 'As-you-type suggestions: fragrances (with their brand), brands, perfumers, notes and accords',
        description:
          'The last word of `q` matches as a prefix, every word may carry a typo, case and accents do not matter. Ranked by match quality, then popularity.',
        requestParams: { query: SuggestQuery },
      },
      'Suggestions, best first.',
      SuggestResponse,
    ),
    '/brands': getPath(
      {
        operationId: 'listBrands',
        summary: 'Brands with their country, fragrance count and top accords',
        description: BROWSE_ORDER,
        requestParams: { query: BrandsQuery },
      },
      'One page of brands.',
      BrandList,
    ),
    '/brands/{slug}': getPath(
      {
        operationId: 'getBrand',
        summary: 'One brand with its counts, top accords and notes, perfumers and years',
        requestParams: { path: BrandSlugParams, query: z.strictObject({}) },
      },
      'The brand.',
      BrandDetail,
      { ...errors, '404': problem('No brand has this slug.') },
    ),
    ...Object.fromEntries(
      (['notes', 'accords', 'perfumers'] as const).map((kind) => [
        `/${kind}`,
        getPath(
          {
            operationId: `list${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)}`,
            summary: `The catalogue's ${kind} with how many fragrances have each`,
            description: BROWSE_ORDER,
            requestParams: { query: TermsQuery },
          },
          `One page of ${kind}.`,
          TermList,
        ),
      ]),
    ),
  };
}

function openApiPath(): ZodOpenApiPathItemObject {
  return {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      security: [],
      responses: {
        '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: z.looseObject({}) } } },
      },
    },
  };
}
