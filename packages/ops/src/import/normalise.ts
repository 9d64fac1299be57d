import { v5 as uuidv5 } from 'uuid';
import { CONCENTRATIONS, foldKey, GENDERS, normaliseConcentration, type Concentration, type Gender } from '@fragrance/contracts';
import { ACCORDS, NOTES } from '@fragrance/vocabulary';

/** Namespace of imported record ids: UUID v5 of the source URL under it (a re-import updates, never duplicates). */
export const IMPORT_NAMESPACE = '3f0b7c52-5d1e-5b8e-9a3c-6c1f2f7e4a10';

/** A line the importer cannot turn into a record; the reason is reported with its line number. */
export class RejectedLine extends Error {}

/**
 * The canonical form of a source URL (https, lower-case host, no query, fragment or trailing
 * slash), so the same page linked two ways gets one id.
 */
export function canonicalUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new RejectedLine(`url: "${raw.slice(0, 80)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RejectedLine(`url: "${raw.slice(0, 80)}" is not an http(s) URL`);
  const path = url.pathname.replace(/\/+$/, '');
  return `https://${url.hostname.toLowerCase()}${path}`;
}

export const idOfUrl = (url: string): string => uuidv5(canonicalUrl(url), IMPORT_NAMESPACE);

/** Missing-value spellings of the public layouts. */
const MISSING = new Set(['', 'na', 'n/a', 'null', 'none', 'unknown', '-']);
export const isMissing = (value: string | undefined): boolean => value === undefined || MISSING.has(value.trim().toLowerCase());

/** Words a slug keeps in lower case when they are not the first. */
const SMALL_WORDS = new Set(['de', 'du', 'des', 'd', 'di', 'da', 'del', 'of', 'the', 'and', 'et', 'la', 'l']);

/**
 * `le-male-pride-2023` → `Le Male Pride 2023`: a URL slug (lower case, no spaces) gets its words
 * back and capitals; anything else is a display name already and is only trimmed.
 */
export function displayName(value: string): string {
  const text = value.trim();
  if (/\s/.test(text) || text !== text.toLowerCase()) return text;
  return text
    .split(/-+/)
    .filter(Boolean)
    .map((word, i) => (i > 0 && SMALL_WORDS.has(word) ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(' ');
}

/** Required text: present and not a missing-value spelling. */
export function required(name: string, value: string | undefined): string {
  if (isMissing(value)) throw new RejectedLine(`${name}: missing`);
  return value!.trim();
}

/** A comma list (`a, b, c`) without missing items; empty when the field is missing. */
export function list(value: string | undefined): string[] {
  if (isMissing(value)) return [];
  return value!
    .split(',')
    .map((item) => item.trim())
    .filter((item) => !isMissing(item));
}

/** A number written with a decimal point or comma (`3,86`), or undefined when missing. */
export function decimal(name: string, value: string | undefined): number | undefined {
  if (isMissing(value)) return undefined;
  const text = value!.trim().replace(',', '.');
  if (!/^\d+(?:\.\d+)?$/.test(text)) throw new RejectedLine(`${name}: "${value!.slice(0, 40)}" is not a number`);
  return Number(text);
}

export function count(name: string, value: string | undefined): number {
  if (isMissing(value)) return 0;
  const text = value!.trim();
  if (!/^\d{1,9}$/.test(text)) throw new RejectedLine(`${name}: "${text.slice(0, 40)}" is not a whole number`);
  return Number(text);
}

/** A rating on `scale` (5 or 10) to ours (0..5, two decimals); 0 or missing means unrated. */
export function rating(name: string, value: string | undefined, scale: 5 | 10): number | null {
  const raw = decimal(name, value);
  if (raw === undefined || raw === 0) return null;
  if (raw > scale) throw new RejectedLine(`${name}: ${raw} is above the ${scale}-point scale`);
  return Math.round((raw * 500) / scale) / 100;
}

export function year(name: string, value: string | undefined): number | null {
  if (isMissing(value)) return null;
  const text = value!.trim();
  if (!/^\d{4}$/.test(text) || Number(text) < 1700 || Number(text) > 2100)
    throw new RejectedLine(`${name}: "${text.slice(0, 20)}" is not a year from 1700 to 2100`);
  return Number(text);
}

const GENDER_BY_KEY: ReadonlyMap<string, Gender> = new Map([
  ...GENDERS.map((g) => [g, g] as const),
  // The wording of Fragrantica's pages, which scraped files sometimes keep.
  ['for women', 'women'],
  ['for men', 'men'],
  ['for women and men', 'unisex'],
  ['for men and women', 'unisex'],
]);

/** `women`, `men` or `unisex` (case-insensitive); undefined when missing. Anything else rejects the line. */
export function gender(name: string, value: string | undefined): Gender | undefined {
  if (isMissing(value)) return undefined;
  const found = GENDER_BY_KEY.get(foldKey(value!));
  if (!found) throw new RejectedLine(`${name}: "${value!.trim().slice(0, 40)}" is not one of ${GENDERS.join(', ')}`);
  return found;
}

/** The vocabulary's spelling of a note or accord where the folded text matches one; the rest kept as written. */
function vocabularyMatcher(words: readonly string[]): (value: string) => string {
  const byKey = new Map(words.map((w) => [foldKey(w), w]));
  return (value) => {
    const text = value.trim();
    return byKey.get(foldKey(text)) ?? byKey.get(foldKey(text.replace(/\([^)]*\)/g, ''))) ?? text;
  };
}
export const noteSpelling = vocabularyMatcher(NOTES);
export const accordSpelling = vocabularyMatcher(ACCORDS);

/** Distinct values in first-seen order, compared folded. */
export function distinct(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = foldKey(v);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Perfumer credits with their extra words removed: `Perfumer: X (Givaudan) and Y` → [X, Y]. */
export function perfumers(values: string[]): string[] {
  return distinct(
    values
      .flatMap((v) => v.split(/,|;|\s+(?:and|&|und|et)\s+/i))
      .map((v) =>
        displayName(
          v
            .replace(/\([^)]*\)/g, '')
            .replace(/^\s*(?:perfumers?|nose|by)\s*:?\s+/i, '')
            .trim(),
        ),
      )
      .filter((v) => !isMissing(v)),
  );
}

/**
 * Region names in English (Intl, no table to maintain) → ISO 3166-1 alpha-2, plus the usual
 * short forms. Unknown or missing countries become `ZZ` (CLDR's "Unknown Region").
 */
const COUNTRY_BY_NAME: ReadonlyMap<string, string> = (() => {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const map = new Map<string, string>();
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = names.of(code);
      // First code wins: FR before FX (Metropolitan France), the current code before a retired one.
      if (name && name !== code && !map.has(foldKey(name))) map.set(foldKey(name), code);
    }
  }
  for (const [alias, code] of [
    ['usa', 'US'],
    ['united states of america', 'US'],
    ['uk', 'GB'],
    ['england', 'GB'],
    ['uae', 'AE'],
    ['russia', 'RU'],
    ['south korea', 'KR'],
    ['czech republic', 'CZ'],
  ] as const) {
    map.set(alias, code);
  }
  return map;
})();
export const UNKNOWN_COUNTRY = 'ZZ';

export function countryCode(value: string | undefined): string {
  if (isMissing(value)) return UNKNOWN_COUNTRY;
  const text = value!.trim();
  if (/^[A-Za-z]{2}$/.test(text)) return text.toUpperCase();
  return COUNTRY_BY_NAME.get(foldKey(text)) ?? UNKNOWN_COUNTRY;
}

/**
 * A Parfumo variant listing's name without the tail that repeats its own row: "Joop! Homme Joop!
 * 1989 Eau de Toilette" (brand Joop!, 1989, Eau de Toilette) → "Joop! Homme". Only the exact tail
 * "<brand> <year> <concentration>" (compared folded; no year in it when the row has none) goes: in
 * the public file every variant listing carries its concentration, and names that merely end in
 * their brand ("Esprit d'Amouage") or another year stay whole. A name that is nothing but the tail
 * is kept as it is.
 */
export function withoutVariantTail(
  name: string,
  brand: string,
  releaseYear: number | null,
  givenConcentration: string | undefined,
): string {
  if (isMissing(givenConcentration)) return name;
  const tail = foldKey([brand, releaseYear ?? '', givenConcentration].join(' '));
  const words = name.split(/\s+/);
  // The longest head whose remaining words fold to the tail: the least text removed.
  for (let cut = words.length - 1; cut > 0; cut--) {
    if (foldKey(words.slice(cut).join(' ')) !== tail) continue;
    // Separators left dangling before the tail ("A Party, Or Something -") go with it.
    const head = words
      .slice(0, cut)
      .join(' ')
      .replace(/[\s,;:/–—-]+$/u, '');
    if (foldKey(head) !== '') return head;
  }
  return name;
}

/** Words in a name that say its concentration ("… Eau de Toilette", "… EDP"). */
const NAME_CONCENTRATIONS: readonly [RegExp, Concentration][] = [
  [/\bextrait\b/, 'Extrait de Parfum'],
  [/\beau de parfum\b|\bedp\b/, 'Eau de Parfum'],
  [/\beau de toilette\b|\bedt\b/, 'Eau de Toilette'],
  [/\beau de cologne\b|\bedc\b|\bcologne\b/, 'Eau de Cologne'],
  [/\beau fraiche\b/, 'Eau Fraîche'],
  [/\bparfum\b/, 'Parfum'],
];
/** What a record without any concentration gets: the most common one (documented in docs/dataset.md). */
export const DEFAULT_CONCENTRATION: Concentration = 'Eau de Parfum';

export function concentration(given: string | undefined, name: string): Concentration {
  if (!isMissing(given)) {
    const known = normaliseConcentration(given!);
    if (known) return known;
  }
  const key = foldKey(name);
  for (const [pattern, value] of NAME_CONCENTRATIONS) if (pattern.test(key)) return value;
  return DEFAULT_CONCENTRATION;
}

export { CONCENTRATIONS };
