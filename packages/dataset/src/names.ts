import type { Rng } from './rng.ts';
import { foldText } from './vocab.ts';

/**
 * Invented names. Brands, products and perfumers are made from syllables and stock words so
 * they read like real perfumery without naming a real house or person.
 */

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'f', 'fl', 'g', 'gr', 'j', 'l', 'm', 'n', 'p', 'pr', 'r', 's', 'sol', 'st', 't', 'tr', 'v', 'vel', 'z', 'h', 'k', 'kl', 'sv', 'qu', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ou', 'ea', 'ia', 'au'];
/** Accented stand-ins per vowel: where most of the diacritics come from. */
const ACCENTED: Readonly<Record<string, readonly string[]>> = {
  a: ['à', 'â', 'å', 'á', 'ä'],
  e: ['é', 'è', 'ê', 'ë'],
  i: ['í', 'î', 'ï'],
  o: ['ô', 'ö', 'ø', 'ó'],
  u: ['ü', 'û', 'ú'],
};
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'nd', 'rt', 'x', 'v', 'ç'];
const ENDINGS = ['a', 'e', 'elle', 'ine', 'ora', 'is', 'ane', 'ette', 'ard', 'el', 'o', 'ier', 'ès', 'éa', 'ën', 'ø', 'ara', 'ys', 'ance', 'eau', 'ova', 'ina', 'ille', 'ère', 'ño', 'ça'];

/** Real houses and words too close to them: an invented word equal to one of these is redrawn. */
const REAL_BRAND_WORDS = new Set([
  'chanel', 'dior', 'guerlain', 'hermes', 'creed', 'amouage', 'byredo', 'kilian', 'xerjoff', 'nishane',
  'roja', 'malle', 'diptyque', 'lancome', 'givenchy', 'armani', 'versace', 'prada', 'gucci', 'kenzo',
  'lalique', 'montale', 'mancera', 'lattafa', 'afnan', 'rasasi', 'ajmal', 'memo', 'tauer', 'lutens',
  'floris', 'clive', 'marly', 'initio', 'caron', 'rochas', 'ricci', 'celine', 'loewe', 'bvlgari',
  'cartier', 'boucheron', 'chopard', 'mugler', 'nina', 'valentino', 'fendi', 'burberry', 'coach',
  'zara', 'jovoy', 'bond', 'maison', 'sisley', 'annick', 'goutal', 'ormonde', 'zoologist', 'amore',
  'escada', 'moschino', 'davidoff', 'azzaro', 'paco', 'lanvin', 'balmain', 'celine', 'tiziana',
  'terenzi', 'orto', 'parisi', 'vilhelm', 'frapin', 'nasomatto', 'atelier', 'lolita', 'lempicka',
]);

function accent(rng: Rng, vowel: string, p: number): string {
  const first = vowel[0] ?? '';
  const options = ACCENTED[first];
  if (!options || !rng.chance(p)) return vowel;
  return rng.pick(options) + vowel.slice(1);
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** An invented word of 2–3 syllables, e.g. "Lüméa", "Solvåre", "Brivanèl". */
export function inventedWord(rng: Rng, accentP = 0.35): string {
  for (;;) {
    const syllables = rng.int(1, 2);
    let word = '';
    for (let i = 0; i < syllables; i++) {
      word += rng.pick(ONSETS) + accent(rng, rng.pick(VOWELS), accentP) + (i === syllables - 1 ? '' : rng.pick(CODAS));
    }
    const ending = rng.pick(ENDINGS);
    // Avoid a vowel pile-up like "oua" + "a".
    word = /[aeiouàâåáäéèêëíîïôöøóüûú]$/.test(word) && /^[aeiouéèë]/.test(ending) ? word + rng.pick(['n', 'r', 'l', 'v']) + ending : word + ending;
    if (word.length < 4 || word.length > 11) continue;
    if (REAL_BRAND_WORDS.has(foldText(word))) continue;
    return capitalise(word);
  }
}

const CITY_BY_COUNTRY: Readonly<Record<string, string>> = {
  FR: 'Paris', IT: 'Milano', GB: 'London', US: 'New York', ES: 'Madrid', DE: 'Berlin', JP: 'Tokyo',
  AU: 'Sydney', AE: 'Dubai', SE: 'Stockholm', CH: 'Genève', DK: 'København', NL: 'Amsterdam',
};
const FIRST_NAMES_BRAND = ['Élise', 'Olivier', 'Inès', 'Matthias', 'Léonie', 'Bastien', 'Noémie', 'Aurélien', 'Solène', 'Björn', 'Ramón', 'Zoë', 'Anaïs', 'Joël'];

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

const NOUNS_FR = ['Noir', 'Blanc', 'Rouge', 'Nuit', 'Soleil', 'Lumière', 'Rêve', 'Forêt', 'Brume', 'Encens', 'Cuir', 'Ambre', 'Musc', 'Santal', 'Fleur', 'Jardin', 'Été', 'Hiver', 'Minuit', 'Aube', 'Crépuscule', 'Océan', 'Désert', 'Île', 'Château', 'Voyage', 'Mirage', 'Élixir', 'Velours', 'Éclat', 'Sérénade', 'Pétale', 'Rivière', 'Orage', 'Cœur', 'Âme', 'Étoile', 'Lune', 'Aurore', 'Sillage', 'Bohème', 'Éphémère', 'Caresse', 'Délice', 'Mistral', 'Façade', 'Garçon', 'Leçon', 'Hôtel', 'Forêt Noire', 'Fête'];
const NOUNS_OTHER = ['Sueño', 'Corazón', 'Mañana', 'Niña', 'Alba', 'Notte', 'Sole', 'Ombra', 'Luce', 'Brezza', 'Giardino', 'Fuoco', 'Acqua', 'Terra', 'Cielo', 'Vento', 'Seta', 'Oro', 'Perla', 'Fjord', 'Nordlys', 'Sølv', 'Ånd', 'Blüte', 'Frühling', 'Träumerei', 'Grün', 'Mørke', 'Hav', 'Skog', 'Råg', 'Saudade', 'Coração', 'Maçã'];
const ADJ_FR = ['Sombre', 'Doré', 'Sauvage', 'Intense', 'Absolu', 'Extrême', 'Brûlé', 'Glacé', 'Poudré', 'Fumé', 'Boisé', 'Épicé', 'Sucré', 'Ambré', 'Vénitien', 'Andalou', 'Nordique', 'Secret', 'Privé', 'Sacré', 'Perdu', 'Éternel', 'Infini', 'Royal', 'Impérial', 'Nocturne', 'Céleste', 'Mystique', 'Rosé', 'Fané', 'Lointain', 'Doux', 'Clair', 'Éblouissant'];
const EN_ADJ = ['Velvet', 'Golden', 'Silent', 'Wild', 'Hidden', 'Electric', 'Midnight', 'Burnt', 'Salted', 'Quiet', 'Crimson', 'Silver', 'Smoked', 'Radiant', 'Lost', 'Sacred', 'Black', 'White', 'Pale', 'Distant', 'Coastal', 'Sunlit'];
const EN_NOUN = ['Orchard', 'Harbour', 'Tide', 'Ember', 'Ritual', 'Garden', 'Ash', 'Salt', 'Moss', 'Echo', 'Horizon', 'Smoke', 'Reverie', 'Atlas', 'Canopy', 'Meridian', 'Relic', 'Veil', 'Dune', 'Grove', 'Lantern', 'Monsoon', 'Summit', 'Chapter', 'Orbit'];
const PLACES = ['Séville', 'Tanger', 'Kyōto', 'Marrakech', 'Córdoba', 'Málaga', 'Bergen', 'Ålesund', 'Göteborg', 'Zürich', 'Genève', 'Nîmes', 'Grasse', 'Capri', 'Amalfi', 'Montréal', 'Québec', 'São Paulo', 'Bogotá', 'Reykjavík', 'Tromsø', 'Århus', 'Kraków', 'Byron Bay', 'Hobart', 'Zanzibar', 'Cádiz', 'Alentejo', 'Provence', 'Bretagne'];
const NOTE_WORDS = ['Oud', 'Iris', 'Vétiver', 'Rose', 'Ambre', 'Santal', 'Néroli', 'Tabac', 'Cuir', 'Jasmin', 'Patchouli', 'Vanille', 'Figue', 'Tubéreuse', 'Bergamote', 'Musc', 'Encens', 'Cèdre', 'Mimosa', 'Myrrhe', 'Safran', 'Thé', 'Osmanthus', 'Labdanum', 'Pivoine', 'Lavande', 'Cassis', 'Poivre', 'Café', 'Cacao'];
const ROMAN = ['II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

/** An invented product name; a few single words ("Noir") recur across brands, as in real catalogues. */
export function fragranceName(rng: Rng): string {
  const p = rng.int(0, 99);
  if (p < 12) return rng.pick(NOUNS_FR);
  if (p < 16) return rng.pick(NOUNS_OTHER);
  if (p < 34) return `${rng.pick(NOUNS_FR)} ${rng.pick(ADJ_FR)}`;
  if (p < 42) return `${rng.pick(NOUNS_OTHER)} ${rng.pick(NOUNS_OTHER)}`;
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

const GIVEN = ['Éloïse', 'Amélie', 'Zoë', 'Søren', 'Björn', 'Anaïs', 'Inès', 'Joël', 'Noël', 'Raphaël', 'Hélène', 'Céline', 'Agnès', 'Françoise', 'Loïc', 'Mathéo', 'Théo', 'Léa', 'Chloé', 'Renée', 'José', 'Ramón', 'Martín', 'Iñaki', 'Begoña', 'Sebastián', 'Lucía', 'Sofía', 'Joaquín', 'Jürgen', 'Jörg', 'Anke', 'Mareike', 'Åsa', 'Ørjan', 'Ingrid', 'Sigrid', 'Kaito', 'Yūko', 'Haruki', 'Aiko', 'Priya', 'Arjun', 'Layla', 'Yasmin', 'Omar', 'Karim', 'Nadia', 'Giulia', 'Matteo', 'Lorenzo', 'Chiara', 'Niccolò', 'Emma', 'Oliver', 'Grace', 'Daniel', 'Camille', 'Margaux', 'Olivia', 'Lukas', 'Elif', 'Mehmet', 'João', 'Conceição', 'Thiago', 'Maëlle', 'Bérénice', 'Gaël'];
const SURNAME_SUFFIX: readonly (readonly string[])[] = [
  ['ière', 'eau', 'ard', 'et', 'ot', 'elle', 'ès', 'ain'],
  ['sen', 'ström', 'berg', 'dahl', 'qvist', 'lund', 'gård'],
  ['ez', 'ero', 'ón', 'eña', 'ado'],
  ['etti', 'ini', 'one', 'ucci', 'ello'],
  ['mann', 'bach', 'stein', 'hölzer', 'ner'],
];

/** An invented perfumer, e.g. "Éloïse Brévanneau". */
export function perfumerName(rng: Rng): string {
  const root = inventedWord(rng, 0.25).replace(/[aeiouàâåáäéèêëíîïôöøóüûúyç]+$/i, '');
  const surname = (root.length >= 2 ? root : root + 'v') + rng.pick(rng.pick(SURNAME_SUFFIX));
  return `${rng.pick(GIVEN)} ${surname}`;
}
