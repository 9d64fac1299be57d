import { foldKey } from '@fragrance/contracts';
import type { Rng } from './rng.ts';

/**
 * Invented names. Brands, products and perfumers are made from syllables and stock words so
 * they read like real perfumery without naming a real house or person.
 */

const ONSETS = [
  'b',
  'br',
  'c',
  'ch',
  'd',
  'f',
  'fl',
  'g',
  'gr',
  'j',
  'l',
  'm',
  'n',
  'p',
  'pr',
  'r',
  's',
  'st',
  't',
  'tr',
  'v',
  'z',
  'h',
  'k',
  'kl',
  'sv',
  'qu',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ou', 'ea', 'ia', 'au'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'v', 'nd', 'rt'];

/** A language-ish flavour, so a word's accents and ending go together ("Lüméa", not "Têçgrárën"). */
interface Flavour {
  accents: Readonly<Record<string, readonly string[]>>;
  endings: readonly string[];
  surnames: readonly string[];
}
const FLAVOURS: readonly Flavour[] = [
  {
    accents: { a: ['â', 'à'], e: ['é', 'è', 'ê', 'ë'], i: ['ï', 'î'], o: ['ô'], u: ['û'] },
    endings: ['elle', 'ine', 'ette', 'ard', 'ier', 'ère', 'ès', 'éa', 'eau', 'ance', 'ys', 'ane', 'is', 'el', 'ée', 'once'],
    surnames: ['ière', 'eau', 'ard', 'et', 'ot', 'elle', 'ès', 'ain', 'ier', 'and'],
  },
  {
    accents: { a: ['å', 'ä'], o: ['ø', 'ö'], e: ['é'] },
    endings: ['a', 'en', 'und', 'vik', 'heim', 'dal', 'e', 'ra', 'ild', 'ar'],
    surnames: ['sen', 'ström', 'berg', 'dahl', 'qvist', 'lund', 'gård', 'by'],
  },
  {
    accents: { u: ['ü'], o: ['ö'], a: ['ä'] },
    endings: ['a', 'er', 'en', 'ling', 'e', 'ra', 'ach'],
    surnames: ['mann', 'bach', 'stein', 'hölzer', 'ner', 'egger'],
  },
  {
    accents: { a: ['á'], e: ['é'], i: ['í'], o: ['ó'], u: ['ú'] },
    endings: ['ño', 'ña', 'ara', 'ez', 'ía', 'ón', 'ela', 'ita', 'ada'],
    surnames: ['ez', 'ero', 'ón', 'eña', 'ado', 'ales'],
  },
  {
    accents: { a: ['à'], o: ['ò'], e: ['è'] },
    endings: ['ina', 'etta', 'ello', 'ora', 'à', 'ino', 'esca', 'ìa'],
    surnames: ['etti', 'ini', 'one', 'ucci', 'ello', 'ari'],
  },
];
const FLAVOUR_WEIGHTS = [45, 15, 10, 15, 15];

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Puts an accent of the flavour on one vowel of the word, if it has an accentable vowel. */
function accentOnce(rng: Rng, word: string, flavour: Flavour): string {
  const spots: number[] = [];
  for (let i = 0; i < word.length; i++) {
    // Not the u of "qu"/"au"/"eau", nor the first letter of "au"/"ou": accents there read as typos.
    if (word[i] === 'u' && /[qaeiou]/.test(word[i - 1] ?? '')) continue;
    if (word[i + 1] === 'u') continue;
    if (flavour.accents[word[i] ?? '']) spots.push(i);
  }
  if (spots.length === 0) return word;
  const at = rng.pick(spots);
  return word.slice(0, at) + rng.pick(flavour.accents[word[at] ?? ''] ?? ['']) + word.slice(at + 1);
}

function syllables(rng: Rng, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += rng.pick(ONSETS) + rng.pick(VOWELS) + (i === count - 1 ? '' : rng.pick(CODAS));
  return out;
}

const ACCENTED = /\P{ASCII}/u;

/** An invented word of 2–3 syllables, e.g. "Lüméa", "Solvåra", "Briavère"; at most one accent. */
export function inventedWord(rng: Rng, accentP = 0.4): string {
  for (;;) {
    const flavour = rng.weighted(FLAVOURS, FLAVOUR_WEIGHTS);
    const stem = syllables(rng, rng.int(1, 2));
    const ending = rng.pick(flavour.endings);
    // Avoid a vowel pile-up like "oua" + "a".
    const joint = /[aeiou]$/.test(stem) && /^[aeiouàáâäåèéêëìíîïòóôöøùúûü]/.test(ending) ? rng.pick(['n', 'r', 'l', 'v']) : '';
    let word = stem + joint + ending;
    if (!ACCENTED.test(ending) && rng.chance(accentP)) word = accentOnce(rng, word, flavour);
    if (word.length < 4 || word.length > 10) continue;
    if (REAL_BRAND_WORDS.has(foldKey(word))) continue;
    return capitalise(word);
  }
}

/** Real houses and words too close to them: an invented word equal to one of these is redrawn. */
const REAL_BRAND_WORDS = new Set([
  'chanel',
  'dior',
  'guerlain',
  'hermes',
  'creed',
  'amouage',
  'byredo',
  'kilian',
  'xerjoff',
  'nishane',
  'roja',
  'malle',
  'diptyque',
  'lancome',
  'givenchy',
  'armani',
  'versace',
  'prada',
  'gucci',
  'kenzo',
  'lalique',
  'montale',
  'mancera',
  'lattafa',
  'afnan',
  'rasasi',
  'ajmal',
  'memo',
  'tauer',
  'lutens',
  'floris',
  'clive',
  'marly',
  'initio',
  'caron',
  'rochas',
  'ricci',
  'celine',
  'loewe',
  'bvlgari',
  'cartier',
  'boucheron',
  'chopard',
  'mugler',
  'nina',
  'valentino',
  'fendi',
  'burberry',
  'coach',
  'zara',
  'jovoy',
  'bond',
  'maison',
  'sisley',
  'annick',
  'goutal',
  'ormonde',
  'zoologist',
  'amore',
  'escada',
  'moschino',
  'davidoff',
  'azzaro',
  'paco',
  'lanvin',
  'balmain',
  'celine',
  'tiziana',
  'terenzi',
  'orto',
  'parisi',
  'vilhelm',
  'frapin',
  'nasomatto',
  'atelier',
  'lolita',
  'lempicka',
]);

const CITY_BY_COUNTRY: Readonly<Record<string, string>> = {
  FR: 'Paris',
  IT: 'Milano',
  GB: 'London',
  US: 'New York',
  ES: 'Madrid',
  DE: 'Berlin',
  JP: 'Tokyo',
  AU: 'Sydney',
  AE: 'Dubai',
  SE: 'Stockholm',
  CH: 'Genève',
  DK: 'København',
  NL: 'Amsterdam',
};
const FIRST_NAMES_BRAND = [
  'Élise',
  'Olivier',
  'Inès',
  'Matthias',
  'Léonie',
  'Bastien',
  'Noémie',
  'Aurélien',
  'Solène',
  'Björn',
  'Ramón',
  'Zoë',
  'Anaïs',
  'Joël',
];

/** An invented brand name in one of the patterns houses use. */
export function brandName(rng: Rng, country: string): string {
  const w = inventedWord(rng);
  const pattern = rng.int(0, 99);
  if (pattern < 14) return `Maison ${w}`;
  if (pattern < 24) return `${w} Parfums`;
  if (pattern < 31) return `Atelier ${w}`;
  if (pattern < 52) return w;
  if (pattern < 58) return `${w} & ${inventedWord(rng)}`;
  if (pattern < 66) return `${rng.pick(FIRST_NAMES_BRAND)} ${w}`;
  if (pattern < 71) return `Casa ${w}`;
  if (pattern < 76) return `Parfums ${w}`;
  if (pattern < 80) return `Les Parfums de ${w}`;
  if (pattern < 84) return `House of ${w}`;
  if (pattern < 92) {
    const city = CITY_BY_COUNTRY[country];
    return city ? `${w} ${city}` : `${w} Perfumery`;
  }
  if (pattern < 96) return country === 'AE' || country === 'SA' || country === 'OM' ? `Dār ${w}` : `${w} Studio`;
  return `${w} ${rng.pick(['Oud', 'Essences', 'Fragrances', 'Perfumes'])}`;
}

const NOUNS_FR = [
  'Noir',
  'Blanc',
  'Rouge',
  'Nuit',
  'Soleil',
  'Lumière',
  'Rêve',
  'Forêt',
  'Brume',
  'Encens',
  'Cuir',
  'Ambre',
  'Musc',
  'Santal',
  'Fleur',
  'Jardin',
  'Été',
  'Hiver',
  'Minuit',
  'Aube',
  'Crépuscule',
  'Océan',
  'Désert',
  'Île',
  'Château',
  'Voyage',
  'Mirage',
  'Élixir',
  'Velours',
  'Éclat',
  'Sérénade',
  'Pétale',
  'Rivière',
  'Orage',
  'Cœur',
  'Âme',
  'Étoile',
  'Lune',
  'Aurore',
  'Sillage',
  'Bohème',
  'Éphémère',
  'Caresse',
  'Délice',
  'Mistral',
  'Façade',
  'Garçon',
  'Leçon',
  'Hôtel',
  'Forêt Noire',
  'Fête',
];
const NOUNS_OTHER = [
  'Sueño',
  'Corazón',
  'Mañana',
  'Niña',
  'Alba',
  'Notte',
  'Sole',
  'Ombra',
  'Luce',
  'Brezza',
  'Giardino',
  'Fuoco',
  'Acqua',
  'Terra',
  'Cielo',
  'Vento',
  'Seta',
  'Oro',
  'Perla',
  'Fjord',
  'Nordlys',
  'Sølv',
  'Ånd',
  'Blüte',
  'Frühling',
  'Träumerei',
  'Grün',
  'Mørke',
  'Hav',
  'Skog',
  'Råg',
  'Saudade',
  'Coração',
  'Maçã',
];
const ADJ_FR = [
  'Sombre',
  'Doré',
  'Sauvage',
  'Intense',
  'Absolu',
  'Extrême',
  'Brûlé',
  'Glacé',
  'Poudré',
  'Fumé',
  'Boisé',
  'Épicé',
  'Sucré',
  'Ambré',
  'Vénitien',
  'Andalou',
  'Nordique',
  'Secret',
  'Privé',
  'Sacré',
  'Perdu',
  'Éternel',
  'Infini',
  'Royal',
  'Impérial',
  'Nocturne',
  'Céleste',
  'Mystique',
  'Rosé',
  'Fané',
  'Lointain',
  'Doux',
  'Clair',
  'Éblouissant',
];
const EN_ADJ = [
  'Velvet',
  'Golden',
  'Silent',
  'Wild',
  'Hidden',
  'Electric',
  'Midnight',
  'Burnt',
  'Salted',
  'Quiet',
  'Crimson',
  'Silver',
  'Smoked',
  'Radiant',
  'Lost',
  'Sacred',
  'Black',
  'White',
  'Pale',
  'Distant',
  'Coastal',
  'Sunlit',
];
const EN_NOUN = [
  'Orchard',
  'Harbour',
  'Tide',
  'Ember',
  'Ritual',
  'Garden',
  'Ash',
  'Salt',
  'Moss',
  'Echo',
  'Horizon',
  'Smoke',
  'Reverie',
  'Atlas',
  'Canopy',
  'Meridian',
  'Relic',
  'Veil',
  'Dune',
  'Grove',
  'Lantern',
  'Monsoon',
  'Summit',
  'Chapter',
  'Orbit',
];
const PLACES = [
  'Séville',
  'Tanger',
  'Kyōto',
  'Marrakech',
  'Córdoba',
  'Málaga',
  'Bergen',
  'Ålesund',
  'Göteborg',
  'Zürich',
  'Genève',
  'Nîmes',
  'Grasse',
  'Capri',
  'Amalfi',
  'Montréal',
  'Québec',
  'São Paulo',
  'Bogotá',
  'Reykjavík',
  'Tromsø',
  'Århus',
  'Kraków',
  'Byron Bay',
  'Hobart',
  'Zanzibar',
  'Cádiz',
  'Alentejo',
  'Provence',
  'Bretagne',
];
const NOTE_WORDS = [
  'Oud',
  'Iris',
  'Vétiver',
  'Rose',
  'Ambre',
  'Santal',
  'Néroli',
  'Tabac',
  'Cuir',
  'Jasmin',
  'Patchouli',
  'Vanille',
  'Figue',
  'Tubéreuse',
  'Bergamote',
  'Musc',
  'Encens',
  'Cèdre',
  'Mimosa',
  'Myrrhe',
  'Safran',
  'Thé',
  'Osmanthus',
  'Labdanum',
  'Pivoine',
  'Lavande',
  'Cassis',
  'Poivre',
  'Café',
  'Cacao',
];
const ROMAN = ['II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

/** An invented product name; a few single words ("Noir") recur across brands, as in real catalogues. */
export function fragranceName(rng: Rng): string {
  const p = rng.int(0, 99);
  if (p < 12) return rng.pick(NOUNS_FR);
  if (p < 16) return rng.pick(NOUNS_OTHER);
  if (p < 34) return `${rng.pick(NOUNS_FR)} ${rng.pick(ADJ_FR)}`;
  if (p < 42) {
    const [a, b] = rng.sample(NOUNS_OTHER, 2);
    return `${a} ${b}`;
  }
  if (p < 52) return `${rng.pick(NOUNS_FR)} de ${rng.pick(PLACES)}`;
  if (p < 64) return `${rng.pick(NOTE_WORDS)} ${rng.pick([...ADJ_FR, ...NOUNS_FR])}`;
  if (p < 72) return inventedWord(rng, 0.5);
  if (p < 78) return `${rng.pick([...NOUNS_FR, ...NOTE_WORDS])} No. ${rng.int(1, 99)}`;
  if (p < 80) return `${inventedWord(rng, 0.5)} ${rng.pick(ROMAN)}`;
  return `${rng.pick(EN_ADJ)} ${rng.pick(EN_NOUN)}`;
}

/** A name made unique within a brand when every draw collided: edition numbers, then a counter. */
export function editionName(base: string, attempt: number): string {
  return attempt < ROMAN.length ? `${base} ${ROMAN[attempt]}` : `${base} Édition ${attempt + 2}`;
}

const GIVEN = [
  'Éloïse',
  'Amélie',
  'Zoë',
  'Søren',
  'Björn',
  'Anaïs',
  'Inès',
  'Joël',
  'Noël',
  'Raphaël',
  'Hélène',
  'Céline',
  'Agnès',
  'Françoise',
  'Loïc',
  'Mathéo',
  'Théo',
  'Léa',
  'Chloé',
  'Renée',
  'José',
  'Ramón',
  'Martín',
  'Iñaki',
  'Begoña',
  'Sebastián',
  'Lucía',
  'Sofía',
  'Joaquín',
  'Jürgen',
  'Jörg',
  'Anke',
  'Mareike',
  'Åsa',
  'Ørjan',
  'Ingrid',
  'Sigrid',
  'Kaito',
  'Yūko',
  'Haruki',
  'Aiko',
  'Priya',
  'Arjun',
  'Layla',
  'Yasmin',
  'Omar',
  'Karim',
  'Nadia',
  'Giulia',
  'Matteo',
  'Lorenzo',
  'Chiara',
  'Niccolò',
  'Emma',
  'Oliver',
  'Grace',
  'Daniel',
  'Camille',
  'Margaux',
  'Olivia',
  'Lukas',
  'Elif',
  'Mehmet',
  'João',
  'Conceição',
  'Thiago',
  'Maëlle',
  'Bérénice',
  'Gaël',
];
/** An invented perfumer, e.g. "Éloïse Bravenière", "Søren Quavelström". */
export function perfumerName(rng: Rng): string {
  const flavour = rng.weighted(FLAVOURS, FLAVOUR_WEIGHTS);
  const root = syllables(rng, rng.chance(0.6) ? 2 : 1) + rng.pick(['n', 'r', 'l', 's', 'v', 'nd', 'rt', 'm']);
  let surname = root + rng.pick(flavour.surnames);
  if (!ACCENTED.test(surname) && rng.chance(0.25)) surname = accentOnce(rng, surname, flavour);
  return `${rng.pick(GIVEN)} ${capitalise(surname)}`;
}
