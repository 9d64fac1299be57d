import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SearchQuery } from '@fragrance/contracts';
import { createCursorCodec, InvalidCursorError, MAX_CURSOR_POSITION, queryFingerprint, type SortValueKind } from './cursor.ts';
import { buildSearchQuery } from './query.ts';
import { idSortKey } from './sort.ts';

const secret = () => randomBytes(32).toString('base64url');
const RELEVANCE: SortValueKind[] = ['float', 'integer', 'keyword'];
const POPULARITY: SortValueKind[] = ['integer', 'keyword'];

/** A cursor with any payload, correctly signed: what a holder of the key (or a bug) could produce. */
const forge = (key: string, payload: unknown) => {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${createHmac('sha256', key).update(text).digest('base64url')}`;
};

describe('cursor codec', () => {
  const key = secret();
  const codec = createCursorCodec({ current: key });
  const params = SearchQuery.parse({ query: 'rose', brand: 'X' });
  const fingerprint = queryFingerprint(params);

  it('round-trips and ignores paging parameters in the fingerprint', () => {
    const cursor = codec.encode({ after: [1.5, 10, 'id'], position: 40 }, fingerprint);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(codec.decode(cursor, fingerprint, RELEVANCE)).toEqual({ after: [1.5, 10, 'id'], position: 40 });
    expect(queryFingerprint(SearchQuery.parse({ brand: 'X', query: 'rose', limit: '5', facets: 'brand' }))).toBe(fingerprint);
  });

  it('rejects any edit of payload or signature, and garbage', () => {
    const cursor = codec.encode({ after: [1.5, 10, 'id'], position: 40 }, fingerprint);
    const [payload = '', mac = ''] = cursor.split('.');
    const edited = Buffer.from(JSON.stringify({ a: [1.5, 10, 'id'], p: 999_999, f: fingerprint })).toString('base64url');
    const bad = [
      `${edited}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'E' : 'A'}`,
      `${payload}.${mac.slice(0, -1)}${mac.at(-1) === 'A' ? 'B' : 'A'}`, // a non-canonical spelling of (possibly) the same bytes
      `${payload}.${mac}x`,
      `${payload}.${mac}.${mac}`,
      payload,
      `.${mac}`,
      `${payload}.`,
      'abc',
      Buffer.from('{"a":[{}],"p":1,"f":"x"}').toString('base64url'),
      '',
    ];
    for (const cursor of bad) expect(() => codec.decode(cursor, fingerprint, RELEVANCE), cursor).toThrow(InvalidCursorError);
  });

  it('accepts the previous key while rotating, and nothing signed with any other', () => {
    const old = secret();
    const fresh = secret();
    const issued = createCursorCodec({ current: old }).encode({ after: [2, 'id'], position: 20 }, fingerprint);
    const rotating = createCursorCodec({ current: fresh, previous: old });
    expect(rotating.decode(issued, fingerprint, POPULARITY)).toEqual({ after: [2, 'id'], position: 20 });
    // It signs with the new key only.
    const reissued = rotating.encode({ after: [2, 'id'], position: 20 }, fingerprint);
    expect(() => createCursorCodec({ current: old }).decode(reissued, fingerprint, POPULARITY)).toThrow(InvalidCursorError);
    expect(createCursorCodec({ current: fresh }).decode(reissued, fingerprint, POPULARITY)).toEqual({ after: [2, 'id'], position: 20 });
    expect(() => createCursorCodec({ current: fresh }).decode(issued, fingerprint, POPULARITY)).toThrow(InvalidCursorError);
  });

  it('rejects a cursor of another query, naming the reason', () => {
    const cursor = codec.encode({ after: [1, 'id'], position: 20 }, queryFingerprint(SearchQuery.parse({ query: 'oud' })));
    expect(() => codec.decode(cursor, fingerprint, POPULARITY)).toThrow(/different query/);
  });

  it('type-checks even a validly signed cursor against the sort in use, and bounds its position', () => {
    const ok = { a: [1.5, 10, 'id'], p: 40, f: fingerprint };
    expect(codec.decode(forge(key, ok), fingerprint, RELEVANCE)).toEqual({ after: [1.5, 10, 'id'], position: 40 });
    expect(codec.decode(forge(key, { ...ok, p: MAX_CURSOR_POSITION }), fingerprint, RELEVANCE).position).toBe(MAX_CURSOR_POSITION);
    const bad: unknown[] = [
      { ...ok, a: ['x', 10, 'id'] },
      { ...ok, a: [1.5, 10.5, 'id'] },
      { ...ok, a: [1.5, '10', 'id'] },
      { ...ok, a: [1.5, 10, 7] },
      { ...ok, a: [1.5, 10, null] },
      { ...ok, a: [1.5, 10] },
      { ...ok, a: [1.5, 10, 'id', 'x'] },
      { ...ok, a: 'x' },
      { ...ok, p: 0 },
      { ...ok, p: -1 },
      { ...ok, p: 1.5 },
      { ...ok, p: '40' },
      { ...ok, p: MAX_CURSOR_POSITION + 1 },
      { a: ok.a, p: ok.p },
      [1],
      null,
    ];
    for (const payload of bad) {
      expect(() => codec.decode(forge(key, payload), fingerprint, RELEVANCE), JSON.stringify(payload)).toThrow(InvalidCursorError);
    }
  });
});

describe('buildSearchQuery with a cursor', () => {
  const ID = '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3';
  const ID_KEY = idSortKey(ID)!;
  const key = secret();
  const codec = createCursorCodec({ current: key });

  it('checks the cursor against the sort of this query before building anything', () => {
    const noText = SearchQuery.parse({ brand: 'X' });
    const f = queryFingerprint(noText);
    const text = SearchQuery.parse({ brand: 'X', query: 'rose' });
    const cursor = codec.encode({ after: [1, 2, ID], position: 20 }, f);
    expect(() => buildSearchQuery({ ...noText, cursor }, codec)).toThrow(InvalidCursorError);
    // The cursor carries the id; Elasticsearch is sent its sort key.
    const fits = codec.encode({ after: [2, ID], position: 20 }, f);
    expect(buildSearchQuery({ ...noText, cursor: fits }, codec)).toMatchObject({ offset: 20, body: { search_after: [2, ...ID_KEY] } });
    // A score where the popularity sort expects a vote count.
    expect(() => buildSearchQuery({ ...noText, cursor: forge(key, { a: [1.5, ID], p: 20, f }) }, codec)).toThrow(InvalidCursorError);
    // A signed cursor whose id is not a UUID never reaches Elasticsearch.
    expect(() => buildSearchQuery({ ...noText, cursor: forge(key, { a: [2, 'id'], p: 20, f }) }, codec)).toThrow(InvalidCursorError);
    const textCursor = codec.encode({ after: [3.25, 2, ID], position: 5 }, queryFingerprint(text));
    expect(buildSearchQuery({ ...text, cursor: textCursor }, codec).body.search_after).toEqual([3.25, 2, ...ID_KEY]);
  });
});
