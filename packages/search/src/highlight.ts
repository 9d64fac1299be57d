import type { FragranceDetail, Highlight, HighlightFragment, MatchSpan } from '@fragrance/contracts';
import { queryVariants } from './synonyms.ts';

/*
 * Highlights are computed here, not by Elasticsearch: the indexed fields are folded copies, so
 * its offsets would point into text the client never sees. Each value is folded character by
 * character (the same steps as foldKey) while remembering where every folded character came
 * from, so a matched folded word maps back to a span of the original value.
 */

const LETTERS: Record<string, string> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', þ: 'th', ı: 'i' };

function foldChar(char: string): string {
  return char
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[øæœßłđþı]/g, (c) => LETTERS[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ');
}

interface Token {
  word: string;
  /** Span of the token in the original value (UTF-16 offsets). */
  start: number;
  end: number;
}

/** The folded words of a value with where each sits in the original. */
export function foldedTokens(value: string): Token[] {
  const tokens: Token[] = [];
  let current: Token | undefined;
  let offset = 0;
  for (const char of value) {
    const folded = foldChar(char);
    const end = offset + char.length;
    if (folded === '' && current) {
      // A combining mark (or similar) belongs to the word it follows.
      current.end = end;
    }
    for (const c of folded) {
      if (c === ' ') {
        if (current) tokens.push(current);
        current = undefined;
      } else if (current) {
        current.word += c;
        current.end = end;
      } else {
        current = { word: c, start: offset, end };
      }
    }
    offset = end;
  }
  if (current) tokens.push(current);
  return tokens;
}

/** Edits allowed for a query word of this length: Elasticsearch's fuzziness AUTO:4,7. */
const allowedEdits = (length: number) => (length < 4 ? 0 : length < 7 ? 1 : 2);

/** Optimal string alignment distance (transpositions count once), or max + 1 past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previous = before;
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length] ?? max + 1;
}

export interface QueryWords {
  /** Whole words: a value word matches one exactly or within the allowed edits. */
  words: string[];
  /** Last words: a value word starting with one matches (the user is still typing it). */
  prefixes: string[];
}

/** The words a folded query (with its synonym variants) can match. */
export function queryWords(key: string): QueryWords {
  const texts = queryVariants(key).texts;
  const words = new Set<string>();
  const prefixes = new Set<string>();
  for (const text of texts) {
    const split = text.split(' ').filter(Boolean);
    split.forEach((w) => words.add(w));
    const last = split.at(-1);
    if (last) prefixes.add(last);
  }
  return { words: [...words], prefixes: [...prefixes] };
}

function matches(token: string, query: QueryWords): boolean {
  if (query.prefixes.some((p) => token.startsWith(p))) return true;
  return query.words.some((w) => token === w || editDistance(token, w, allowedEdits(w.length)) <= allowedEdits(w.length));
}

/** The fragment of one value, or undefined when no word of it matched. */
export function highlightValue(value: string, query: QueryWords): HighlightFragment | undefined {
  const spans: MatchSpan[] = foldedTokens(value)
    .filter((token) => matches(token.word, query))
    .map(({ start, end }) => ({ start, end }));
  return spans.length > 0 ? { text: value, matches: spans } : undefined;
}

type Highlightable = Pick<FragranceDetail, 'name' | 'brand' | 'perfumers' | 'notes' | 'accords'>;

/** Where a folded query matched a record: each field with a match lists its matching values. */
export function highlightRecord(record: Highlightable, query: QueryWords): Highlight {
  const notes = [...new Set([...record.notes.top, ...record.notes.heart, ...record.notes.base])];
  const fields: [keyof Highlight, string[]][] = [
    ['name', [record.name]],
    ['brand', [record.brand]],
    ['perfumers', record.perfumers],
    ['notes', notes],
    ['accords', record.accords],
  ];
  const out: Highlight = {};
  for (const [field, values] of fields) {
    const fragments = values.flatMap((v) => highlightValue(v, query) ?? []);
    if (fragments.length > 0) out[field] = fragments;
  }
  return out;
}

/** _source fields a search hit needs besides the summary to be highlighted. */
export const HIGHLIGHT_SOURCE_FIELDS = ['perfumers', 'notes', 'accords'] as const;
