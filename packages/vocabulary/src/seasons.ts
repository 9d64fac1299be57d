import { OCCASIONS, SEASONS, type Concentration, type Occasion, type Season } from '@fragrance/contracts';

/*
 * Seasons and occasions a fragrance suits, as rules over its accords (and concentration): the
 * generator fills records with them and enrichment fills the records that lack them, identically.
 */

// The lists live in the contracts (search parameters are enums of them); re-exported here.
export { OCCASIONS, SEASONS, type Occasion, type Season };

const FRESH = new Set<string>([
  'citrus',
  'fresh',
  'aquatic',
  'marine',
  'ozonic',
  'green',
  'fresh spicy',
  'aromatic',
  'herbal',
  'tea',
  'soapy',
  'salty',
  'mineral',
]);
const WARM = new Set<string>([
  'amber',
  'warm spicy',
  'vanilla',
  'oud',
  'leather',
  'tobacco',
  'smoky',
  'incense',
  'balsamic',
  'sweet',
  'caramel',
  'cacao',
  'coffee',
  'rum',
  'whiskey',
  'animalic',
  'honey',
  'cinnamon',
  'nutty',
]);
const FLORAL = new Set<string>([
  'floral',
  'white floral',
  'yellow floral',
  'rose',
  'tuberose',
  'violet',
  'iris',
  'powdery',
  'fruity',
  'lactonic',
]);

/** Seasons a set of accords suits (deterministic; used by the generator and the enricher). */
export function deriveSeasons(accords: readonly string[]): Season[] {
  let fresh = 0;
  let warm = 0;
  let floral = 0;
  accords.slice(0, 5).forEach((a, i) => {
    const w = 5 - i;
    if (FRESH.has(a)) fresh += w;
    if (WARM.has(a)) warm += w;
    if (FLORAL.has(a)) floral += w;
  });
  const out = new Set<Season>();
  if (fresh >= warm) out.add('summer');
  if (fresh > 0 || floral > 0) out.add('spring');
  if (warm >= fresh) out.add('winter');
  if (warm > 0 || (floral > 0 && fresh === 0)) out.add('autumn');
  if (out.size === 0) out.add('spring');
  return SEASONS.filter((s) => out.has(s));
}

/** Occasions a set of accords and a concentration suit (deterministic). */
export function deriveOccasions(accords: readonly string[], concentration: Concentration): Occasion[] {
  const lead = new Set(accords.slice(0, 4));
  const strong = concentration === 'Extrait de Parfum' || concentration === 'Parfum';
  const light = concentration === 'Eau de Cologne' || concentration === 'Eau Fraîche';
  const has = (set: Set<string>) => [...lead].some((a) => set.has(a));
  const out = new Set<Occasion>();
  if (!strong) out.add('daily');
  if (has(FRESH) || light) out.add('leisure');
  if (has(FRESH) && !strong) out.add('office');
  if ((lead.has('citrus') || lead.has('aquatic') || lead.has('marine') || lead.has('ozonic')) && !strong) out.add('sport');
  if (has(WARM) || strong) out.add('evening');
  if (lead.has('sweet') || lead.has('vanilla') || lead.has('rose') || lead.has('white floral') || lead.has('amber')) out.add('date night');
  if (strong || lead.has('iris') || lead.has('leather') || lead.has('aldehydic')) out.add('formal');
  if (out.size === 0) out.add('daily');
  return OCCASIONS.filter((o) => out.has(o));
}
