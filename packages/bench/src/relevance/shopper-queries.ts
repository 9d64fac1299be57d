// Shopper queries judged on a real catalogue (issue 33): what people type into a fragrance search
// box — acronyms, number words, a concentration the name does not spell, a brand alone, a first
// word, a shared name, a dropped apostrophe, an abbreviation, a typo in the brand — each drawn by a
// RULE from whatever records the catalogue holds, with the record(s) a person would want as the
// right answers. Nothing here is tuned to one file: a second, different catalogue gets its own set.
// The alias table is the judge's, kept apart from any list the search code uses.
import { CONCENTRATION_SPELLINGS, CONCENTRATIONS, foldKey, type Concentration, type FragranceDetail } from '@fragrance/contracts';
import { typo } from '../random.ts';
import { typed as typedLatin, type RelevanceQuery } from './queries.ts';

/** The metric a kind is judged by (the table), and the target it must reach. */
export type JudgedBy = 'success_at_1' | 'success_at_3' | 'precision_at_10';

/** A kind of shopper query (what shoppers type is said in the doc comment of each kind below). */
export interface ShopperKind {
  name: string;
  judgedBy: JudgedBy;
  /** Issue 33's target for the kind's judged metric. */
  target: number;
  /** Every query the rule draws from the catalogue (sampled down by drawShopperQueries). */
  generate: (catalogue: ShopperCatalogue, random: () => number) => RelevanceQuery[];
}

/**
 * What shoppers type for well-known houses, keyed by the folded brand as catalogues spell it.
 * The judge's own table (sources: how retailers' and forums' search boxes are used), independent
 * of the search code's alias list; a house the catalogue lacks is simply unused.
 */
export const SHOPPER_BRAND_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'yves saint laurent': ['YSL', 'Saint Laurent'],
  'saint laurent': ['YSL'],
  'dolce gabbana': ['D&G', 'DG', 'D and G', 'Dolce and Gabbana'],
  'calvin klein': ['CK'],
  'jean paul gaultier': ['JPG', 'Gaultier'],
  'maison francis kurkdjian': ['MFK', 'Kurkdjian'],
  'parfums de marly': ['PDM'],
  'comme des garcons': ['CDG'],
  'abercrombie fitch': ['A&F', 'Abercrombie'],
  'bath body works': ['BBW', 'Bath and Body Works'],
  'tom ford': ['TF'],
  'victoria s secret': ['VS', 'Victorias Secret'],
  'giorgio armani': ['Armani'],
  bvlgari: ['Bulgari'],
  mugler: ['Thierry Mugler'],
  'thierry mugler': ['Mugler'],
  'estee lauder': ['Lauder', 'Estee Lauder'],
  'carolina herrera': ['CH'],
  'paco rabanne': ['Rabanne'],
  rabanne: ['Paco Rabanne'],
  'hugo boss': ['Boss'],
  'acqua di parma': ['ADP'],
  'maison margiela': ['Margiela'],
  'editions de parfums frederic malle': ['Frederic Malle', 'Malle'],
  'frederic malle': ['Malle'],
  kilian: ['By Kilian'],
  'by kilian': ['Kilian'],
  'viktor rolf': ['V&R', 'Viktor and Rolf'],
  'the body shop': ['Body Shop', 'TBS'],
  'marc jacobs': ['MJ'],
  'michael kors': ['MK'],
  'serge lutens': ['Lutens'],
  'l artisan parfumeur': ['Artisan Parfumeur'],
  'penhaligon s': ['Penhaligons'],
  'jo malone london': ['Jo Malone'],
  'bond no 9': ['Bond No 9', 'Bond'],
  'roja parfums': ['Roja', 'Roja Dove'],
};

/** Lookups over the judged catalogue, by folded value; popularity is the record's vote count. */
export interface ShopperCatalogue {
  records: readonly FragranceDetail[];
  byName: ReadonlyMap<string, FragranceDetail[]>;
  byNameBrand: ReadonlyMap<string, FragranceDetail[]>;
  byBrand: ReadonlyMap<string, FragranceDetail[]>;
  /** Every folded word of every note and accord: a word that names an ingredient is a category query. */
  ingredientWords: ReadonlySet<string>;
}

const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};
const nameBrandKey = (r: FragranceDetail) => `${foldKey(r.name)}|${foldKey(r.brand)}`;

export function shopperCatalogue(records: readonly FragranceDetail[]): ShopperCatalogue {
  const byName = new Map<string, FragranceDetail[]>();
  const byNameBrand = new Map<string, FragranceDetail[]>();
  const byBrand = new Map<string, FragranceDetail[]>();
  const ingredientWords = new Set<string>();
  for (const r of records) {
    push(byName, foldKey(r.name), r);
    push(byNameBrand, nameBrandKey(r), r);
    push(byBrand, foldKey(r.brand), r);
    for (const item of [...r.notes.top, ...r.notes.heart, ...r.notes.base, ...r.accords])
      for (const word of foldKey(item).split(' ')) if (word) ingredientWords.add(word);
  }
  return { records, byName, byNameBrand, byBrand, ingredientWords };
}

const votes = (r: FragranceDetail) => r.rating.count;
const byVotes = (a: FragranceDetail, b: FragranceDetail) => votes(b) - votes(a);
const ids = (records: readonly FragranceDetail[]) => new Set(records.map((r) => r.id));
const query = (kind: string, text: string, relevant: readonly FragranceDetail[]): RelevanceQuery => ({
  kind,
  params: { query: text.replace(/\s+/g, ' ').trim() },
  relevant: ids(relevant),
});
const pickOne = <T>(random: () => number, items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];

/**
 * Text as typed on a Latin keyboard: lower case, no accents, words in other scripts left out
 * ("Hanami はなみ" → "hanami"); a name with no Latin letters yields no query.
 */
export const typed = (text: string) =>
  typedLatin(text.replace(/[^\s\p{Script=Latin}\p{N}\p{P}\p{S}\p{M}]+/gu, ' '))
    .replace(/\s+/g, ' ')
    .trim();
/** "Al Haramain / الحرمين" is typed "al haramain": the first of a brand's " / " spellings, as typed. */
export const typedBrand = (brand: string) => typed(brand.split(' / ')[0] ?? brand);
const sameNameBrand = (c: ShopperCatalogue, r: FragranceDetail) => c.byNameBrand.get(nameBrandKey(r)) ?? [r];
const sameName = (c: ShopperCatalogue, r: FragranceDetail) => c.byName.get(foldKey(r.name)) ?? [r];
/** One house holds the name: it identifies a fragrance without its brand. */
const nameIsOneHouses = (c: ShopperCatalogue, r: FragranceDetail) => new Set(sameName(c, r).map((s) => foldKey(s.brand))).size === 1;
const nameStandsAlone = (c: ShopperCatalogue, r: FragranceDetail) => nameIsOneHouses(c, r) && distinctiveName(r);
/** The name alone where one house holds it, else brand + name; with its right answers. */
function nameAsTyped(c: ShopperCatalogue, r: FragranceDetail, name = typed(r.name)): { text: string; relevant: FragranceDetail[] } {
  return nameStandsAlone(c, r)
    ? { text: name, relevant: sameName(c, r) }
    : { text: `${typedBrand(r.brand)} ${name}`, relevant: sameNameBrand(c, r) };
}
/** One record per distinct name + brand (variant listings of one fragrance give one query). */
const distinctNameBrands = (c: ShopperCatalogue) => [...c.byNameBrand.values()].map((list) => [...list].sort(byVotes)[0]!);

const CONCENTRATION_WORDS = new Set(
  CONCENTRATIONS.flatMap((k) => [k, ...CONCENTRATION_SPELLINGS[k]]).flatMap((s) => foldKey(s).split(' ')),
);
/** Words that say who or what a fragrance is for, not which one it is. */
const GENERIC_WORDS = new Set([
  'de',
  'for',
  'pour',
  'men',
  'man',
  'women',
  'woman',
  'homme',
  'femme',
  'him',
  'her',
  'the',
  'and',
  'les',
  'des',
]);
/** Text a Latin keyboard can type (two letters at least), not a placeholder ("NAME?"). */
const isTypable = (key: string) => /\p{Script=Latin}{2}/u.test(key) && key !== 'name';
/** …and not only concentration or generic words ("Homme", "for Men"): it can stand alone in a query. */
const isDistinctive = (key: string) => isTypable(key) && !key.split(' ').every((w) => CONCENTRATION_WORDS.has(w) || GENERIC_WORDS.has(w));
const typableName = (r: FragranceDetail) => isTypable(foldKey(typed(r.name)));
const distinctiveName = (r: FragranceDetail) => isDistinctive(foldKey(typed(r.name)));
/** Every letter of the name is Latin: nothing of it is lost when typed. */
const latinOnly = (r: FragranceDetail) => !/[^\P{L}\p{Script=Latin}]/u.test(r.name);
const spellsConcentration = (name: string) =>
  foldKey(name)
    .split(' ')
    .some((w) => CONCENTRATION_WORDS.has(w));

/** Aliases of a brand: the judge's table, plus the initials of a brand of 3–4 words if no other brand shares them. */
export function brandAliases(c: ShopperCatalogue, brandKey: string): string[] {
  const table = SHOPPER_BRAND_ALIASES[brandKey] ?? [];
  return [...table, ...(derivedInitials(c).get(brandKey) ?? [])].filter((a) => foldKey(a) !== brandKey);
}

const initialsCache = new WeakMap<ShopperCatalogue, Map<string, string[]>>();
/** "Maison Francis Kurkdjian" → MFK; only initials no other brand has and no name or brand spells as a word. */
function derivedInitials(c: ShopperCatalogue): Map<string, string[]> {
  const cached = initialsCache.get(c);
  if (cached) return cached;
  const words = new Set([...c.byName.keys(), ...c.byBrand.keys()].flatMap((k) => k.split(' ')));
  const byInitials = new Map<string, string[]>();
  for (const [brandKey, records] of c.byBrand) {
    const parts = typedBrand(records[0]!.brand).match(/\p{L}+/gu) ?? [];
    if (parts.length < 3 || parts.length > 4 || !parts.every((p) => /^[a-z]+$/.test(p))) continue;
    push(byInitials, parts.map((p) => p.charAt(0)).join(''), brandKey);
  }
  const out = new Map<string, string[]>();
  for (const [initials, brands] of byInitials)
    if (brands.length === 1 && !words.has(initials) && !c.byBrand.has(initials)) out.set(brands[0]!, [initials.toUpperCase()]);
  initialsCache.set(c, out);
  return out;
}
const isAcronym = (alias: string) => !/\p{Ll}/u.test(alias);

/** Digits as people say them: 1–99 as a number ("twenty seven"), three digits one by one ("two one two"). */
const ONES =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(
    ' ',
  );
const TENS = 'zero ten twenty thirty forty fifty sixty seventy eighty ninety'.split(' ');
export function spokenNumber(digits: string): string | undefined {
  if (!/^\d{1,3}$/.test(digits)) return undefined;
  if (/^[1-9]00$/.test(digits)) return `${ONES[Number(digits[0])]} hundred`;
  if (digits.length === 3 || (digits.length === 2 && digits.startsWith('0')))
    return digits
      .split('') // ASCII digits only (checked above)
      .map((d) => ONES[Number(d)])
      .join(' ');
  const n = Number(digits);
  if (n < 20) return ONES[n];
  return n % 10 === 0 ? TENS[n / 10] : `${TENS[Math.floor(n / 10)]} ${ONES[n % 10]}`;
}

/** "No. 5" / "N°5" → "number 5" or "no 5"; other standalone numbers said as words; undefined when nothing changes. */
export function numberWords(name: string, random: () => number): string | undefined {
  const text = typed(name);
  const words = text.replace(/\bn(?:o\.?|°|º)\s*(?=\d)/gu, () => (random() < 0.5 ? 'number ' : 'no ')).split(/\s+/);
  const said = words.map((word, i) => {
    const digits = /^#?(\d{1,3})[.,:]?$/.exec(word)?.[1];
    const afterNumberSign = i > 0 && /^(?:number|no)$/.test(words[i - 1] ?? '');
    return digits === undefined || afterNumberSign ? word : (spokenNumber(digits) ?? word);
  });
  const spoken = said.join(' ');
  return spoken === text ? undefined : spoken;
}

/** "L'Eau d'Hiver" → "Leau dHiver" (joined) or "Leau d Hiver" (the second elision spaced); undefined without one. */
export function droppedApostrophes(name: string, random: () => number): string | undefined {
  const text = typed(name);
  if (!/\p{L}['’ʼ`]\p{L}/u.test(text)) return undefined;
  let first = true;
  return text.replace(/(\p{L})['’ʼ`](?=\p{L})/gu, (_, letter: string) => {
    const joined = first || random() < 0.5;
    first = false;
    return joined ? letter : `${letter} `;
  });
}

/** The catalogue's concentration spelt as shoppers write it: the full name or the usual abbreviation. */
function concentrationAsTyped(concentration: Concentration, random: () => number): string {
  const spellings = [concentration, ...CONCENTRATION_SPELLINGS[concentration]].map(typed);
  return pickOne(random, [...new Set(spellings)]) ?? typed(concentration);
}
/** Right answers of "<name> <concentration>": those of that concentration when some have it, else all of the name. */
const preferConcentration = (records: FragranceDetail[], concentration: Concentration) => {
  const matching = records.filter((r) => r.concentration === concentration);
  return matching.length > 0 ? matching : records;
};

/** The most popular of `records` when it has votes and at least twice the next one's (clearly ahead). */
function clearlyMostPopular(records: readonly FragranceDetail[]): FragranceDetail | undefined {
  const [top, next] = [...records].sort(byVotes);
  if (!top || votes(top) < 10) return undefined;
  return next === undefined || votes(top) >= 2 * votes(next) ? top : undefined;
}

/** One query of a kind: what is typed and the records a shopper would want. */
interface Drawn {
  text: string;
  relevant: readonly FragranceDetail[];
}

/** A kind's name and how it is judged. */
type KindHeader = Omit<ShopperKind, 'generate'>;
/** A query of the kind being drawn (the kind's name is written once, in its header). */
type Labelled = (text: string, relevant: readonly FragranceDetail[]) => RelevanceQuery;

/** A kind whose rule looks across the catalogue (by name, by brand) rather than record by record. */
function acrossCatalogue(kind: KindHeader, generate: (c: ShopperCatalogue, labelled: Labelled) => RelevanceQuery[]): ShopperKind {
  return { ...kind, generate: (c) => generate(c, (text, relevant) => query(kind.name, text, relevant)) };
}

/** A kind that draws at most one query from each distinct name and brand (none where `draw` says undefined). */
function perNameBrand(
  kind: KindHeader,
  draw: (c: ShopperCatalogue, r: FragranceDetail, random: () => number) => Drawn | undefined,
): ShopperKind {
  return {
    ...kind,
    generate: (c, random) =>
      distinctNameBrands(c).flatMap((r) => {
        const drawn = draw(c, r, random);
        return drawn ? [query(kind.name, drawn.text, drawn.relevant)] : [];
      }),
  };
}

/** The name alone, where one house holds it (every record of that name is right). */
const EXACT_NAME = acrossCatalogue({ name: 'exact_name', judgedBy: 'success_at_1', target: 0.98 }, (c, labelled) =>
  [...c.byName.entries()]
    .filter(([key, records]) => !c.byBrand.has(key) && nameStandsAlone(c, records[0]!))
    .map(([, records]) => labelled(typed(records[0]!.name), records)),
);

/** Brand then name ("guerlain shalimar"). */
const BRAND_NAME = acrossCatalogue({ name: 'brand_name', judgedBy: 'success_at_1', target: 0.98 }, (c, labelled) =>
  distinctNameBrands(c)
    .filter((r) => typableName(r))
    .map((r) => labelled(`${typedBrand(r.brand)} ${typed(r.name)}`, sameNameBrand(c, r))),
);

/** A brand alias or acronym then the name ("ysl myslf", "d&g light blue", "armani code"). */
const ALIAS_NAME = perNameBrand({ name: 'alias_name', judgedBy: 'success_at_1', target: 0.95 }, (c, r, random) => {
  const alias = pickOne(random, brandAliases(c, foldKey(r.brand)));
  if (alias === undefined || !typableName(r)) return undefined;
  return { text: `${random() < 0.5 ? alias : alias.toLowerCase()} ${typed(r.name)}`, relevant: sameNameBrand(c, r) };
});

/** An acronym alone ("ysl", "mfk"): every record of the brand is right (precision@10). */
const ALIAS_ONLY = acrossCatalogue({ name: 'alias_only', judgedBy: 'precision_at_10', target: 0.95 }, (c, labelled) =>
  [...c.byBrand.entries()].flatMap(([brandKey, records]) =>
    brandAliases(c, brandKey)
      .filter(isAcronym)
      .map((alias) => labelled(alias.toLowerCase(), records)),
  ),
);

/** Digits in the name said as words ("one million", "two one two", "number 5"): top 3. */
const NUMBER_WORDS = perNameBrand({ name: 'number_words', judgedBy: 'success_at_3', target: 0.95 }, (c, r, random) => {
  const spoken = numberWords(r.name, random);
  return spoken === undefined || !latinOnly(r) || !isTypable(foldKey(spoken)) ? undefined : nameAsTyped(c, r, spoken);
});

/** The name (brand + name half the time) and a concentration it does not spell: top 3. */
const NAME_CONCENTRATION = perNameBrand({ name: 'name_concentration', judgedBy: 'success_at_3', target: 0.95 }, (c, r, random) => {
  if (spellsConcentration(r.name) || !typableName(r)) return undefined;
  const concentration = pickOne(random, CONCENTRATIONS) ?? r.concentration;
  const named = random() < 0.5 ? nameAsTyped(c, r) : { text: `${typedBrand(r.brand)} ${typed(r.name)}`, relevant: sameNameBrand(c, r) };
  const text = `${named.text} ${concentrationAsTyped(concentration, random)}`;
  return { text, relevant: preferConcentration(named.relevant, concentration) };
});

/** The brand alone: its most popular record (by votes) in the top 3. */
const BRAND_ONLY = acrossCatalogue({ name: 'brand_only', judgedBy: 'success_at_3', target: 0.95 }, (c, labelled) =>
  [...c.byBrand.values()].flatMap((records) => {
    const top = Math.max(...records.map(votes));
    if (records.length < 2 || top === 0) return [];
    return [
      labelled(
        typedBrand(records[0]!.brand),
        records.filter((r) => votes(r) === top),
      ),
    ];
  }),
);

/** The first word of a popular name ("bleu", "aura"), where that record has ≥ 2× the votes of the next. */
const FIRST_WORD = acrossCatalogue({ name: 'first_word', judgedBy: 'success_at_1', target: 0.95 }, (c, labelled) => {
  const byFirstWord = new Map<string, FragranceDetail[]>();
  for (const r of c.records) push(byFirstWord, foldKey(r.name).split(' ')[0] ?? '', r);
  return [...byFirstWord.entries()].flatMap(([word, records]) => {
    const top = clearlyMostPopular(records);
    const generic =
      word.length < 3 || CONCENTRATION_WORDS.has(word) || GENERIC_WORDS.has(word) || c.ingredientWords.has(word) || c.byBrand.has(word);
    return top && !generic && isDistinctive(word) ? [labelled(word, [top])] : [];
  });
});

/** A name several houses share ("vetiver", "oud"): the most popular of them first, where clearly ahead. */
const SHARED_NAME = acrossCatalogue({ name: 'shared_name', judgedBy: 'success_at_1', target: 0.95 }, (c, labelled) =>
  [...c.byName.values()].flatMap((records) => {
    if (!distinctiveName(records[0]!) || new Set(records.map((r) => foldKey(r.brand))).size < 2) return [];
    const top = clearlyMostPopular(records);
    return top ? [labelled(typed(top.name), [top])] : [];
  }),
);

/** The name typed without its apostrophes ("leau dhiver", "leau d hiver"), brand first half the time. */
const DROPPED_APOSTROPHE = perNameBrand({ name: 'dropped_apostrophe', judgedBy: 'success_at_1', target: 0.95 }, (c, r, random) => {
  const typedName = droppedApostrophes(r.name, random);
  if (typedName === undefined || !typableName(r)) return undefined;
  const withBrand = random() < 0.5 || !nameStandsAlone(c, r);
  return withBrand ? { text: `${typedBrand(r.brand)} ${typedName}`, relevant: sameNameBrand(c, r) } : nameAsTyped(c, r, typedName);
});

/** Brand + name + EDP/EDT where the record has that concentration ("kenzo homme edp"). */
const ABBREVIATION = perNameBrand({ name: 'abbreviation', judgedBy: 'success_at_1', target: 0.95 }, (c, r) => {
  const abbreviation = r.concentration === 'Eau de Parfum' ? 'edp' : r.concentration === 'Eau de Toilette' ? 'edt' : undefined;
  if (abbreviation === undefined || spellsConcentration(r.name) || !typableName(r)) return undefined;
  const text = `${typedBrand(r.brand)} ${typed(r.name)} ${abbreviation}`;
  return { text, relevant: preferConcentration(sameNameBrand(c, r), r.concentration) };
});

/** One typo in the brand (a dropped, doubled or swapped letter) then the name ("versaec the dreamer"). */
const BRAND_TYPO = perNameBrand({ name: 'brand_typo', judgedBy: 'success_at_1', target: 0.95 }, (c, r, random) => {
  const brand = typedBrand(r.brand);
  const misspelt = typo(random, brand);
  return misspelt === brand || !typableName(r) ? undefined : { text: `${misspelt} ${typed(r.name)}`, relevant: sameNameBrand(c, r) };
});

export const SHOPPER_KINDS: readonly ShopperKind[] = [
  EXACT_NAME,
  BRAND_NAME,
  ALIAS_NAME,
  ALIAS_ONLY,
  NUMBER_WORDS,
  NAME_CONCENTRATION,
  BRAND_ONLY,
  FIRST_WORD,
  SHARED_NAME,
  DROPPED_APOSTROPHE,
  ABBREVIATION,
  BRAND_TYPO,
];

/** Up to `perKind` queries of each kind (a seeded sample where a rule draws more; distinct texts per kind). */
export function drawShopperQueries(
  records: readonly FragranceDetail[],
  random: () => number,
  perKind: number,
  kinds: readonly ShopperKind[] = SHOPPER_KINDS,
): RelevanceQuery[] {
  const catalogue = shopperCatalogue(records);
  return kinds.flatMap((kind) => {
    const seen = new Set<string>();
    const distinct = kind.generate(catalogue, random).filter((q) => {
      const text = q.params.query ?? '';
      if (text === '' || q.relevant.size === 0 || seen.has(text)) return false;
      seen.add(text);
      return true;
    });
    return shuffle(distinct, random).slice(0, perKind);
  });
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
