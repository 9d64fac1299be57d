import { foldKey } from '@fragrance/contracts';

/**
 * Other names shoppers type for a house: its acronym, its short name, its former or local
 * spelling. Each entry names where the usage comes from, so a reviewer can check it; an alias
 * belongs here only when it points at one house (no "Lauren" for two Laurens).
 */
export interface CuratedBrandAliases {
  /** The house as catalogues spell it (matched folded, and against each " / " part of a catalogue brand). */
  brand: string;
  aliases: readonly string[];
  source: string;
}

const MONOGRAM = "the house's own monogram or logo";
const FORUMS = 'the usual abbreviation on Fragrantica, Parfumo and Basenotes forums and in r/fragrance';
const RENAMED = 'the name the house had or has (renamed or shortened)';
const SHORT = 'the short name retailers and shoppers use for the house';

export const CURATED_BRAND_ALIASES: readonly CuratedBrandAliases[] = [
  { brand: 'Yves Saint Laurent', aliases: ['YSL', 'Saint Laurent'], source: MONOGRAM },
  { brand: 'Dolce & Gabbana', aliases: ['D&G', 'DG', 'D and G', 'Dolce Gabbana'], source: MONOGRAM },
  { brand: 'Calvin Klein', aliases: ['CK'], source: MONOGRAM },
  { brand: 'Jean Paul Gaultier', aliases: ['JPG', 'Gaultier', 'JP Gaultier'], source: FORUMS },
  { brand: 'Maison Francis Kurkdjian', aliases: ['MFK', 'Kurkdjian', 'Francis Kurkdjian'], source: FORUMS },
  { brand: 'Parfums de Marly', aliases: ['PDM', 'Marly'], source: FORUMS },
  { brand: 'Comme des Garçons', aliases: ['CDG'], source: MONOGRAM },
  { brand: 'Abercrombie & Fitch', aliases: ['A&F', 'AF', 'Abercrombie', 'Abercrombie and Fitch'], source: MONOGRAM },
  { brand: 'Bath & Body Works', aliases: ['BBW', 'Bath and Body Works'], source: FORUMS },
  { brand: 'Tom Ford', aliases: ['TF'], source: MONOGRAM },
  { brand: 'Giorgio Armani', aliases: ['Armani', 'GA'], source: SHORT },
  { brand: 'Armani', aliases: ['Giorgio Armani'], source: SHORT },
  { brand: 'Bvlgari', aliases: ['Bulgari'], source: 'the Latin-alphabet spelling of the house name (the logo writes V for U)' },
  { brand: 'Mugler', aliases: ['Thierry Mugler'], source: RENAMED },
  { brand: 'Thierry Mugler', aliases: ['Mugler'], source: RENAMED },
  { brand: 'Rabanne', aliases: ['Paco Rabanne'], source: RENAMED },
  { brand: 'Paco Rabanne', aliases: ['Rabanne'], source: RENAMED },
  { brand: "Victoria's Secret", aliases: ['VS'], source: FORUMS },
  { brand: 'Carolina Herrera', aliases: ['CH', 'Herrera'], source: MONOGRAM },
  { brand: 'Hugo Boss', aliases: ['Boss', 'Hugo'], source: SHORT },
  { brand: 'Estée Lauder', aliases: ['Lauder', 'EL'], source: SHORT },
  { brand: 'Viktor & Rolf', aliases: ['V&R', 'VR', 'Viktor and Rolf'], source: MONOGRAM },
  { brand: 'Acqua di Parma', aliases: ['ADP'], source: FORUMS },
  { brand: 'Louis Vuitton', aliases: ['LV'], source: MONOGRAM },
  { brand: 'Christian Dior', aliases: ['Dior', 'CD'], source: SHORT },
  { brand: 'Dior', aliases: ['Christian Dior', 'CD'], source: SHORT },
  { brand: 'Creed', aliases: ['House of Creed'], source: SHORT },
  { brand: 'Editions de Parfums Frédéric Malle', aliases: ['Frederic Malle', 'Malle', 'FM', 'EdPFM'], source: FORUMS },
  { brand: 'Frédéric Malle', aliases: ['Malle', 'FM', 'Editions de Parfums Frederic Malle'], source: FORUMS },
  { brand: 'By Kilian', aliases: ['Kilian', 'Kilian Paris'], source: RENAMED },
  { brand: 'Kilian', aliases: ['By Kilian', 'Kilian Paris'], source: RENAMED },
  { brand: 'Narciso Rodriguez', aliases: ['NR', 'Narciso'], source: FORUMS },
  { brand: 'Ralph Lauren', aliases: ['RL', 'Polo Ralph Lauren'], source: SHORT },
  { brand: 'Tommy Hilfiger', aliases: ['Tommy', 'TH'], source: SHORT },
  { brand: 'Xerjoff', aliases: ['XJ'], source: FORUMS },
  { brand: 'Bond No. 9', aliases: ['Bond No 9', 'Bond 9', 'Bond Number 9', 'Bond'], source: SHORT },
  { brand: 'Montblanc', aliases: ['Mont Blanc'], source: SHORT },
  { brand: 'Jo Malone', aliases: ['Jo Malone London', 'JML'], source: RENAMED },
  { brand: 'Jo Malone London', aliases: ['Jo Malone', 'JML'], source: RENAMED },
  { brand: 'Maison Margiela', aliases: ['Margiela', 'MMM', 'Martin Margiela'], source: RENAMED },
  { brand: 'Initio Parfums Privés', aliases: ['Initio'], source: SHORT },
  { brand: "Penhaligon's", aliases: ['Penhaligons'], source: SHORT },
  { brand: 'Giorgio Beverly Hills', aliases: ['Giorgio'], source: SHORT },
  { brand: 'Ermenegildo Zegna', aliases: ['Zegna'], source: SHORT },
  { brand: 'Salvatore Ferragamo', aliases: ['Ferragamo'], source: SHORT },
  { brand: 'Michael Kors', aliases: ['MK'], source: MONOGRAM },
  { brand: 'Marc Jacobs', aliases: ['MJ'], source: MONOGRAM },
  { brand: 'Jimmy Choo', aliases: ['JC'], source: MONOGRAM },
  { brand: 'Van Cleef & Arpels', aliases: ['VCA', 'Van Cleef', 'Van Cleef and Arpels'], source: MONOGRAM },
  { brand: 'Juliette Has a Gun', aliases: ['JHAG'], source: FORUMS },
  { brand: 'Zadig & Voltaire', aliases: ['Z&V', 'ZV', 'Zadig', 'Zadig and Voltaire'], source: SHORT },
];

/** Words that name what a house sells or where, not the house: dropped to get its short name. */
const GENERIC_SUFFIXES = new Set([
  'parfums',
  'parfum',
  'perfumes',
  'perfume',
  'fragrances',
  'fragrance',
  'paris',
  'london',
  'milano',
  'beauty',
]);
const GENERIC_PREFIXES = [['parfums', 'de'], ['parfums'], ['maison'], ['house', 'of'], ['by']];
/** Small words that initials of a house may skip ("Parfums de Marly" is PDM, but "Comme des Garçons" is CDG: both kept). */
const SMALL_WORDS = new Set(['de', 'des', 'du', 'di', 'del', 'la', 'le', 'les', 'of', 'the', 'and', 'et', 'y', 'a']);

/** The parts of a catalogue brand: "Al Haramain / الحرمين" is known by each half. */
export function brandParts(brand: string): string[] {
  return brand
    .split(/\s+\/\s+/)
    .map((part) => part.trim())
    .filter(Boolean);
}

/** Folded curated aliases, by the folded brand (each " / " part) they belong to. */
const CURATED: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const entry of CURATED_BRAND_ALIASES) {
    const key = foldKey(entry.brand);
    map.set(key, [...(map.get(key) ?? []), ...entry.aliases.map(foldKey)]);
  }
  return map;
})();

/** Initials of folded words, when they are 3+ letters (two letters are too often a word or another house: those are curated). */
function initials(words: readonly string[]): string | undefined {
  if (words.length < 2 || words.length > 5) return undefined;
  const letters = words.map((word) => word.charAt(0)).join('');
  return letters.length >= 3 && /^\p{L}+$/u.test(letters) ? letters : undefined;
}

/** A folded part's aliases by rule: its initials, its name without generic words, `&` spelled out. */
function derivedAliases(part: string): string[] {
  const folded = foldKey(part);
  const words = folded.split(' ').filter(Boolean);
  const out: string[] = [];
  const all = initials(words);
  if (all) out.push(all);
  const significant = initials(words.filter((w) => !SMALL_WORDS.has(w)));
  if (significant) out.push(significant);
  if (/[&+]/.test(part)) out.push(foldKey(part.replace(/\s*[&+]\s*/g, ' and ')));
  let short = [...words];
  for (const prefix of GENERIC_PREFIXES) {
    if (short.length > prefix.length && prefix.every((w, i) => short[i] === w)) short = short.slice(prefix.length);
  }
  while (short.length > 1 && GENERIC_SUFFIXES.has(short.at(-1) ?? '')) short = short.slice(0, -1);
  const shortName = short.join(' ');
  if (shortName !== folded && shortName.length >= 3) out.push(shortName);
  return out;
}

/**
 * Every other name of a catalogue brand, folded, without the brand's own folded spelling: the
 * curated aliases of the brand and of each of its " / " parts, the parts themselves, and the
 * derived ones (initials of 3+ letters, the name without "Parfums"/"Maison"/…, `&` as "and").
 */
export function brandAliases(brand: string): string[] {
  const own = foldKey(brand);
  const parts = brandParts(brand);
  const out = new Set<string>();
  for (const candidate of [own, ...parts.map(foldKey)]) for (const alias of CURATED.get(candidate) ?? []) out.add(alias);
  if (parts.length > 1) for (const part of parts) out.add(foldKey(part));
  for (const part of parts) for (const alias of derivedAliases(part)) out.add(alias);
  out.delete(own);
  out.delete('');
  return [...out];
}
