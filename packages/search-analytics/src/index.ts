/**
 * @fragrance/search-analytics: what the data API's customers search for, per key owner and quota
 * day, in bounded memory in Redis (docs/search.md#search-analytics).
 *
 * - The catalogue states each search's outcome in an internal header (formatSearchOutcome); the
 *   gateway removes it, reads it (parseSearchOutcome) and counts the search for the key's owner
 *   (createSearchRecorder: one Lua script, sorted sets trimmed past a cap, a TTL).
 * - GET /v1/usage/searches and `ops search report` read the counts back (readSearchReport,
 *   listSearchOwners).
 */
export { formatSearchOutcome, parseSearchOutcome, SEARCH_OUTCOME_HEADER } from './outcome.ts';
export { searchAnalyticsKeys } from './keys.ts';
export { createSearchRecorder, type SearchRecorder } from './recorder.ts';
export { listSearchOwners, readSearchReport, type SearchReport } from './report.ts';
