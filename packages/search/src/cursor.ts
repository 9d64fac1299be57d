import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { SearchQuery } from '@fragrance/contracts';

/** Thrown for a search input only detectable past schema validation. */
export class SearchInputError extends Error {
  readonly param: string;
  constructor(param: string, reason: string) {
    super(reason);
    this.name = 'SearchInputError';
    this.param = param;
  }
}

/** A `cursor` that is not one this API issued for this query: forged, edited, expired key, or foreign. */
export class InvalidCursorError extends SearchInputError {
  constructor(reason = NOT_OURS) {
    super('cursor', reason);
    this.name = 'InvalidCursorError';
  }
}

const NOT_OURS = 'is not a cursor issued by this API, or was altered: request the first page again without a cursor';

export interface CursorState {
  /** Sort values of the last hit of the previous page (search_after). */
  after: estypes.FieldValue[];
  /** Hits before the next page: reported as that page's offset. */
  position: number;
}

/** What each value of a sort must be: `_score` a float, a long field an integer, a keyword a string (or null where missing sorts last). */
export type SortValueKind = 'float' | 'integer' | 'keyword' | 'nullable_keyword';

/**
 * Highest position a cursor can hold: Lucene's per-shard document limit (IndexWriter.MAX_DOCS);
 * the catalogue index has one shard, so no search has more hits.
 */
export const MAX_CURSOR_POSITION = 2_147_483_519;

/** HMAC-SHA256 keys: `current` signs; `previous` (if any) is still accepted, so a key can be rotated. */
export interface CursorKeys {
  current: string;
  previous?: string | undefined;
}

export interface CursorCodec {
  encode: (state: CursorState, fingerprint: string) => string;
  /**
   * Verifies and decodes a cursor for the query with this fingerprint and sort, or throws
   * InvalidCursorError. Nothing of the payload is read before its signature checks out.
   */
  decode: (cursor: string, fingerprint: string, sort: readonly SortValueKind[]) => CursorState;
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

const MAC_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function fits(value: unknown, kind: SortValueKind): boolean {
  switch (kind) {
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      // Elasticsearch longs; a missing value sorts as ±2^63, exactly representable as a double.
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 2 ** 63;
    case 'keyword':
      return typeof value === 'string' && value.length <= 512;
    case 'nullable_keyword':
      return value === null || (typeof value === 'string' && value.length <= 512);
  }
}

/**
 * Cursors are `<payload>.<mac>`: the payload is base64url JSON `{ a: search_after, p: position,
 * f: query fingerprint }`, the mac base64url HMAC-SHA256 of the payload text under the current
 * key. Opaque to clients; any edit, or a key this service no longer holds, fails verification.
 */
export function createCursorCodec(keys: CursorKeys): CursorCodec {
  const secrets = [keys.current, ...(keys.previous ? [keys.previous] : [])];
  const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest();

  function encode(state: CursorState, fingerprint: string): string {
    const payload = Buffer.from(JSON.stringify({ a: state.after, p: state.position, f: fingerprint })).toString('base64url');
    return `${payload}.${mac(keys.current, payload).toString('base64url')}`;
  }

  function verified(cursor: string): unknown {
    const dot = cursor.indexOf('.');
    const payload = cursor.slice(0, dot);
    const signature = cursor.slice(dot + 1);
    if (dot <= 0 || !BASE64URL.test(payload) || !BASE64URL.test(signature)) throw new InvalidCursorError();
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== MAC_BYTES || given.toString('base64url') !== signature) throw new InvalidCursorError();
    // Every key is tried (no early exit), so timing does not tell which one matched.
    let valid = false;
    for (const secret of secrets) valid = timingSafeEqual(mac(secret, payload), given) || valid;
    if (!valid) throw new InvalidCursorError();
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidCursorError();
    }
  }

  function decode(cursor: string, fingerprint: string, sort: readonly SortValueKind[]): CursorState {
    const { a, p, f } = (verified(cursor) ?? {}) as { a?: unknown; p?: unknown; f?: unknown };
    if (typeof f !== 'string' || f !== fingerprint) {
      throw new InvalidCursorError('belongs to a different query: send the same query and filters as the page it came from');
    }
    // Signed by us, so these only fail if a key leaked or the sort changed between releases;
    // checked anyway so nothing malformed ever reaches Elasticsearch.
    if (!Array.isArray(a) || a.length !== sort.length || !sort.every((kind, i) => fits(a[i], kind))) throw new InvalidCursorError();
    if (typeof p !== 'number' || !Number.isSafeInteger(p) || p < 1 || p > MAX_CURSOR_POSITION) throw new InvalidCursorError();
    return { after: a, position: p };
  }

  return { encode, decode };
}
