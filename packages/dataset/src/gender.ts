import type { Gender } from '@fragrance/contracts';

/**
 * How far each accord leans towards how perfumes are marketed (positive: women, negative: men);
 * accords not listed lean neither way. A rough, conventional reading, enough for a plausible
 * catalogue: florals, fruity and sweet to women; aromatic, fresh spicy, leather and aquatic to men.
 */
const LEANS: Readonly<Record<string, number>> = {
  floral: 1,
  'white floral': 1,
  'yellow floral': 1,
  rose: 1,
  tuberose: 1,
  violet: 0.8,
  fruity: 0.9,
  sweet: 0.8,
  powdery: 0.8,
  iris: 0.5,
  vanilla: 0.5,
  lactonic: 0.5,
  woody: -0.5,
  aromatic: -1,
  'fresh spicy': -0.9,
  leather: -0.9,
  tobacco: -0.9,
  lavender: -0.8,
  aquatic: -0.8,
  marine: -0.8,
  earthy: -0.5,
  herbal: -0.5,
  smoky: -0.5,
  citrus: -0.3,
};

/** Share of records whose source catalogue states no gender (real ones leave some out). */
export const NO_GENDER_SHARE = 0.05;

/** A uniform number in [0, 1) from four hex digits of a (random, v4-format) id. */
const unit = (id: string, at: number): number => Number.parseInt(id.slice(at, at + 4), 16) / 0x1_00_00;

/**
 * The gender a record is marketed to, from its accords (strongest first) and its id. Derived,
 * not drawn from the generator's streams, so adding it changed no other field of any record; the
 * id's random digits give the spread real catalogues show (many unisex, some against the accords).
 */
export function deriveGender(accords: readonly string[], id: string): Gender | undefined {
  if (unit(id, 0) < NO_GENDER_SHARE) return undefined;
  let lean = 0;
  accords.slice(0, 5).forEach((accord, i) => (lean += (LEANS[accord] ?? 0) * (1 - 0.15 * i)));
  const score = lean + (unit(id, 4) - 0.5) * 2;
  if (score > 0.6) return 'women';
  if (score < -0.6) return 'men';
  return 'unisex';
}
