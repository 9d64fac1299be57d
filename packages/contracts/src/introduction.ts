import { PROBLEM_CODES, type ProblemCode } from './problem.ts';

/**
 * What each problem `code` means and what a client should do about it: the error catalogue of the
 * reference. A Record over every code, so a code added to PROBLEM_CODES without a line here fails
 * the typecheck.
 */
export const PROBLEM_CODE_MEANINGS: Readonly<Record<ProblemCode, { status: string; meaning: string }>> = {
  bad_request: { status: '400', meaning: 'The request is malformed (e.g. a body where none is expected). Fix the request.' },
  invalid_parameter: {
    status: '400',
    meaning:
      'A parameter is invalid, unknown or repeated; `invalid_params` names each one with the reason. Fix it; retrying does not help.',
  },
  invalid_cursor: {
    status: '400',
    meaning:
      'The `cursor` is not one this API issued for this query (edited, expired signing key, another query). Request the first page again.',
  },
  invalid_path: {
    status: '400',
    meaning: 'The request path is not a well-formed path (encoded slashes, dot segments, control characters).',
  },
  unauthorized: {
    status: '401',
    meaning: 'The API key is missing, malformed, unknown or revoked. Send `Authorization: Bearer <key>` with a live key.',
  },
  invalid_token: {
    status: '401',
    meaning: 'MCP only: the OAuth access token is missing, expired or revoked. Refresh it or sign in again.',
  },
  key_expired: { status: '401', meaning: 'The API key is past its expiry date. Ask the operator for a new key (or a roll).' },
  key_rolled: {
    status: '401',
    meaning: "The API key was replaced (rolled) and its grace period is over; `detail` names its successor's prefix. Use the successor.",
  },
  forbidden: { status: '403', meaning: 'The credentials are valid but not allowed to do this.' },
  insufficient_scope: {
    status: '403',
    meaning:
      "The secret key's scopes (search, export, usage) do not include this endpoint, or (MCP) the access token lacks the tool's scope.",
  },
  endpoint_not_allowed: {
    status: '403',
    meaning:
      'A publishable key reaches only the read endpoints a page needs (search, suggest, detail, similar, facets, browse lists). Call this endpoint from your server with a secret key.',
  },
  origin_not_allowed: {
    status: '403',
    meaning:
      "A publishable key was sent from a page origin it does not allow, or with no `Origin` (nor `Referer`) at all. Ask the operator to add the page's origin to the key.",
  },
  secret_key_in_browser: {
    status: '403',
    meaning:
      'A secret key was sent from a web page (an `Origin` other than this API). Not counted. It has leaked into a page: roll it (`ops keys roll`) and use a publishable key in pages.',
  },
  not_found: { status: '404', meaning: 'No such record (or no such path). Not retried.' },
  method_not_allowed: { status: '405', meaning: 'The data API is read-only: use GET (or HEAD). `Allow` lists the methods.' },
  payload_too_large: { status: '413', meaning: 'The request body is larger than the edge accepts.' },
  rate_limited: { status: '429', meaning: 'Too many requests. Wait `retry_after_seconds` (also in `Retry-After`), then retry.' },
  daily_quota_exceeded: {
    status: '429',
    meaning:
      "The key's daily quota is used up (or an export would not fit in what is left). `retry_after_seconds` is the time until the quota resets.",
  },
  burst_limit_exceeded: {
    status: '429',
    meaning: "Too many requests at once for the key's burst limit. Wait `retry_after_seconds` (usually 1) and retry.",
  },
  visitor_limit_exceeded: {
    status: '429',
    meaning:
      'Publishable keys: this visitor (key and client address) sent too many requests in a short time; other visitors are unaffected. Wait `retry_after_seconds`.',
  },
  mcp_rate_limited: { status: '429', meaning: 'MCP only: the signed-in user sent too many tool calls. Wait `retry_after_seconds`.' },
  registration_rate_limited: {
    status: '429',
    meaning: 'OAuth only: too many client registrations from one address. Wait `retry_after_seconds`.',
  },
  internal_error: {
    status: '500',
    meaning: 'A fault on our side; not counted against the quota. Retry later and quote `request_id` if it persists.',
  },
  upstream_error: { status: '502', meaning: 'An internal service answered badly; not counted. Retry with backoff.' },
  service_unavailable: { status: '503', meaning: 'A dependency is down or the service is restarting; not counted. Retry with backoff.' },
  upstream_timeout: { status: '504', meaning: 'An internal service did not answer in time; not counted. Retry with backoff.' },
};

const errorTable = [
  '| code | status | meaning and what to do |',
  '| --- | --- | --- |',
  ...PROBLEM_CODES.map((code) => `| \`${code}\` | ${PROBLEM_CODE_MEANINGS[code].status} | ${PROBLEM_CODE_MEANINGS[code].meaning} |`),
].join('\n');

/** The reference's introduction (OpenAPI `info.description`, CommonMark): what every endpoint shares. */
export const API_INTRODUCTION = `Read-only B2B data API over ~75,000 fragrances: notes, accords, perfumers, ratings, concentration, year, provenance and availability in Australia.

## Authentication

Every endpoint except \`/openapi.json\` needs an API key issued by the operator, sent as \`Authorization: Bearer <API key>\`. In this reference, put your key in the authentication box and every "Test Request" sends it; it stays in your browser.

There are two kinds of key:

| kind | looks like | where it goes | reaches |
| --- | --- | --- | --- |
| secret | \`fcs_…\` | your servers only, never a web page or app bundle | every endpoint its scopes allow (\`search\`, \`export\`, \`usage\`; all by default) and \`/me\` |
| publishable | \`fcs_pk_…\` | web pages and apps (it is not a secret) | the read endpoints only: \`/fragrances\` (search and facets), \`/fragrances/{id}\`, \`/fragrances/{id}/similar\`, \`/suggest\`, \`/brands\`, \`/brands/{slug}\`, \`/notes\`, \`/accords\`, \`/perfumers\` |

A publishable key is accepted only from the page origins the operator allowed for it (checked against \`Origin\`, or \`Referer\` when there is no \`Origin\`; none at all is refused), is limited per visitor (key and client address) besides its daily quota, and has a largest \`limit\`. The read endpoints answer CORS preflights without a key. A secret key sent from a web page (an \`Origin\` other than this API's) is refused with 403 \`secret_key_in_browser\` and not counted: roll it. Keys may expire (401 \`key_expired\`); a rolled key keeps working for its grace period, then answers 401 \`key_rolled\` naming its successor.

## Quotas and their headers

Each key has a daily quota (reset at 00:00 UTC unless agreed otherwise) and a burst limit (a token bucket). Every data response carries the daily quota twice: in the fields of the IETF RateLimit draft (draft-ietf-httpapi-ratelimit-headers) and in the older trio existing clients read.

| header | value |
| --- | --- |
| \`RateLimit-Policy\` | the quota as a policy: \`"daily";q=<requests per day>;w=86400\` |
| \`RateLimit\` | what is left of it: \`"daily";r=<remaining>;t=<seconds until the reset>\`; a burst 429 lists \`"burst";r=0;t=<seconds>\` first |
| \`RateLimit-Limit\` | the key's requests per day |
| \`RateLimit-Remaining\` | requests left today after this one |
| \`RateLimit-Reset\` | whole seconds until the daily reset |

A refused request answers \`429\` with \`Retry-After\` (whole seconds) and the same number in the body's \`retry_after_seconds\`: wait that long, then retry. \`GET /me\`, \`GET /usage\` and failed requests (401, 403, 429, 5xx) are not counted; an export counts one request per 1,000 records it streams. \`GET /usage?from=&to=\` lists the key's counted requests per day (what is billed), up to 90 days back.

## Versioning and deprecations

The API is versioned in its path (\`/v1\`); within a version changes are additive only. A route that is to be retired says so on every response before it goes: \`Deprecation\` (RFC 9745, a date such as \`@1798761600\`: deprecated since or from then), \`Sunset\` (RFC 8594, the HTTP date after which it may stop answering) and a \`Link\` with \`rel="deprecation"\` (and \`rel="sunset"\`) to the notice naming the replacement. A deprecated route answers exactly as before until its sunset: watch for these headers and migrate in time.

## Paging, sorting and sync

Search pages with \`limit\`/\`offset\` inside the first 10,000 hits, or with \`next_cursor\` → \`cursor\` at any depth. \`sort=updated\` with \`updated_since\` and the cursor mirrors the catalogue incrementally; \`/fragrances/export\` streams it whole as NDJSON. Detail responses carry an \`ETag\`: send it back in \`If-None-Match\` for a \`304\`.

## Errors

Errors are RFC 9457 \`application/problem+json\` with a stable \`code\` to switch on, a human \`detail\`, a \`request_id\` to quote to support, \`invalid_params\` on 400s and \`retry_after_seconds\` on 429s.

${errorTable}

## More

- The OpenAPI document: \`/v1/openapi.json\`. A typed TypeScript client generated from it: \`@fragrance/client\`.
- AI assistants reach the catalogue through the MCP server at \`/mcp\` (OAuth 2.1, discovered from its first 401).
- The API guide (keys, quotas, paging, errors, caching, sync, versioning and deprecations): \`docs/api-guide.md\`.
`;
