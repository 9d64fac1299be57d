import { foldKey, normaliseConcentration, type Concentration } from '@fragrance/contracts';

/*
 * How a retailer feed line finds its catalogue record: the generator guarantees its records are
 * unique under matchKey, the worker's AU retailer enrichment joins the feed on it.
 */

/** Reads a concentration however a retailer or a user wrote it (EDP, edt, Eau De Parfum, …); null if unknown. */
export function parseConcentration(text: string): Concentration | null {
  return normaliseConcentration(text) ?? null;
}

/** A retailer's "Name 100ml" size suffix, which is not part of the product name. */
const SIZE_SUFFIX = /\s*[-–]?\s*\d+\s*ml\s*$/i;

/**
 * Key that a retailer feed line and the catalogue record it refers to share: brand, name (size
 * suffix dropped) and concentration, folded so case, accents and abbreviations do not matter.
 */
export function matchKey(brand: string, name: string, concentration: string): string {
  const conc = parseConcentration(concentration) ?? foldKey(concentration);
  return `${foldKey(brand)}|${foldKey(name.replace(SIZE_SUFFIX, ''))}|${foldKey(conc)}`;
}
