import { createHash } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { SearchQuery } from '@fragrance/contracts';

/** Thrown for a search input only detectable past schema validation (e.g. a foreign cursor). */
export class SearchInputError extends Error {
  readonly param: string;
  constructor(param: string, reason: string) {
    super(reason);
    this.name = 'SearchInputError';
    this.param = param;
  }
}

export interface CursorState {
  /** Sort values of the last hit of the previous page (search_after). */
  after: estypes.FieldValue[];
  /** Hits before the next page: reported as that page's offset. */
  position: number;
}

/**
 * Which search a cursor belongs to: every parameter that changes the hit list. Paging
 * (limit, offset, cursor) and facets are left out, so the page size may change mid-way.
 */
export function queryFingerprint(params: SearchQuery): string {
  const { limit: _l, offset: _o, cursor: _c, facets: _f, ...rest } = params;
  const canonical = Object.keys(rest)
    .sort()
    .map((key) => [key, rest[key as keyof typeof rest]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 12);
}

export function encodeCursor(state: CursorState, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ a: state.after, p: state.position, f: fingerprint })).toString('base64url');
}

const isSortValue = (v: unknown): v is estypes.FieldValue =>
  v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';

/** Decodes a cursor, or throws SearchInputError('cursor') if it is corrupt or from another query. */
export function decodeCursor(cursor: string, fingerprint: string): CursorState {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new SearchInputError('cursor', 'is not a cursor returned by this API');
  }
  const { a, p, f } = (decoded ?? {}) as { a?: unknown; p?: unknown; f?: unknown };
  if (
    !Array.isArray(a) ||
    a.length < 2 ||
    a.length > 3 ||
    !a.every(isSortValue) ||
    typeof p !== 'number' ||
    !Number.isSafeInteger(p) ||
    p < 0 ||
    typeof f !== 'string'
  ) {
    throw new SearchInputError('cursor', 'is not a cursor returned by this API');
  }
  if (f !== fingerprint) {
    throw new SearchInputError('cursor', 'belongs to a different query: send the same query and filters as the page it came from');
  }
  return { after: a, position: p };
}
