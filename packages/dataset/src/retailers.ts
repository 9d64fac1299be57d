import type { AuRetailerFeedLine, Concentration } from '@fragrance/contracts';
import type { Rng } from './rng.ts';
import { CONCENTRATION_SPELLINGS, foldKey } from '@fragrance/contracts';

/** Accents removed, case kept: how some retailers write names. */
export function stripAccents(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ø/g, 'o')
    .replace(/Ø/g, 'O')
    .replace(/æ/g, 'ae')
    .replace(/Æ/g, 'Ae')
    .replace(/œ/g, 'oe')
    .replace(/ł/g, 'l')
    .normalize('NFC');
}

/** How one invented Australian retailer writes its listings. */
export interface Retailer {
  name: string;
  domain: string;
  /** abbr: "EDP"; abbrLower: "edp"; full: "Eau de Parfum"; fullUpper: "EAU DE PARFUM"; alias: any spelling. */
  concentrationStyle: 'abbr' | 'abbrLower' | 'full' | 'fullUpper' | 'alias';
  nameCase: 'asis' | 'upper' | 'lower' | 'title';
  brandUpper: boolean;
  /** Chance a listing drops the accents. */
  stripAccents: number;
  /** Chance a listing appends the bottle size to the name ("Noir 100ml"). */
  sizeSuffix: number;
  /** Price level relative to the house's price. */
  priceFactor: number;
}

/** The invented AU retailers of the feed (domains under the reserved .example TLD). */
export const AU_RETAILERS: readonly Retailer[] = [
  {
    name: 'Southern Sillage',
    domain: 'southernsillage.example',
    concentrationStyle: 'abbr',
    nameCase: 'asis',
    brandUpper: false,
    stripAccents: 0.1,
    sizeSuffix: 0.05,
    priceFactor: 1,
  },
  {
    name: 'Wattle & Vial',
    domain: 'wattleandvial.example',
    concentrationStyle: 'full',
    nameCase: 'asis',
    brandUpper: true,
    stripAccents: 0.6,
    sizeSuffix: 0,
    priceFactor: 1.05,
  },
  {
    name: 'Harbour Parfumerie',
    domain: 'harbourparfumerie.example',
    concentrationStyle: 'abbrLower',
    nameCase: 'title',
    brandUpper: false,
    stripAccents: 0.2,
    sizeSuffix: 0.25,
    priceFactor: 0.97,
  },
  {
    name: 'Coral Coast Fragrances',
    domain: 'coralcoast.example',
    concentrationStyle: 'fullUpper',
    nameCase: 'upper',
    brandUpper: true,
    stripAccents: 0.35,
    sizeSuffix: 0.1,
    priceFactor: 0.92,
  },
  {
    name: 'Outback Scent Co.',
    domain: 'outbackscent.example',
    concentrationStyle: 'alias',
    nameCase: 'lower',
    brandUpper: false,
    stripAccents: 0.9,
    sizeSuffix: 0.15,
    priceFactor: 0.88,
  },
];

/** Bottle sizes sold in Australia, in ml. */
export const AU_SIZES = [30, 50, 75, 100, 125, 200] as const;
const SIZE_WEIGHTS_STRONG = [30, 35, 20, 15, 0, 0];
const SIZE_WEIGHTS_EDP = [15, 30, 8, 35, 7, 5];
const SIZE_WEIGHTS_LIGHT = [5, 20, 5, 35, 10, 25];

export function pickOfferSize(rng: Rng, concentration: Concentration): number {
  const weights =
    concentration === 'Extrait de Parfum' || concentration === 'Parfum'
      ? SIZE_WEIGHTS_STRONG
      : concentration === 'Eau de Parfum'
        ? SIZE_WEIGHTS_EDP
        : SIZE_WEIGHTS_LIGHT;
  return rng.weighted(AU_SIZES, weights);
}

const CONCENTRATION_PRICE: Readonly<Record<Concentration, number>> = {
  'Extrait de Parfum': 1.4,
  Parfum: 1.25,
  'Eau de Parfum': 1,
  'Eau de Toilette': 0.8,
  'Eau de Cologne': 0.68,
  'Eau Fraîche': 0.62,
};

/** Retail style: whole dollars less five cents, never under $19.95. */
export function roundPrice(aud: number): number {
  return Math.round((Math.max(20, Math.round(aud)) - 0.05) * 100) / 100;
}

export function offerPrice(rng: Rng, basePrice: number, concentration: Concentration, size: number, retailer: Retailer): number {
  const raw = basePrice * CONCENTRATION_PRICE[concentration] * Math.pow(size / 100, 0.8) * retailer.priceFactor * (1 + 0.04 * rng.normal());
  return roundPrice(raw);
}

function slug(text: string): string {
  return foldKey(text).replace(/ /g, '-');
}

/** Product page URL; the same product and size always get the same URL at a retailer. */
export function offerUrl(retailer: Retailer, brand: string, name: string, concentration: Concentration, size: number): string {
  const abbr = CONCENTRATION_SPELLINGS[concentration][0] ?? concentration;
  return `https://www.${retailer.domain}/products/${slug(brand)}-${slug(name)}-${slug(abbr)}-${size}ml`;
}

function titleCase(text: string): string {
  return text
    .split(' ')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join(' ');
}

function writeName(text: string, style: Retailer['nameCase']): string {
  switch (style) {
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'title':
      return titleCase(text);
    case 'asis':
      return text;
  }
}

function writeConcentration(rng: Rng, concentration: Concentration, style: Retailer['concentrationStyle']): string {
  const abbr = CONCENTRATION_SPELLINGS[concentration][0] ?? concentration;
  switch (style) {
    case 'abbr':
      return abbr;
    case 'abbrLower':
      return abbr.toLowerCase();
    case 'full':
      return concentration;
    case 'fullUpper':
      return concentration.toUpperCase();
    case 'alias':
      return rng.pick([concentration, ...CONCENTRATION_SPELLINGS[concentration]]);
  }
}

/** A feed line for a product, written the way this retailer writes listings. */
export function feedLineFor(
  rng: Rng,
  retailer: Retailer,
  product: { brand: string; name: string; concentration: Concentration },
  size: number,
  price: number,
  seenAtMs: number,
): AuRetailerFeedLine {
  const strip = rng.chance(retailer.stripAccents);
  let name = writeName(strip ? stripAccents(product.name) : product.name, retailer.nameCase);
  if (rng.chance(retailer.sizeSuffix)) name += rng.pick([` ${size}ml`, ` ${size}ML`, ` ${size} ml`, ` - ${size}mL`]);
  const brand = strip ? stripAccents(product.brand) : product.brand;
  return {
    retailer: retailer.name,
    brand: retailer.brandUpper ? brand.toUpperCase() : brand,
    name,
    concentration: writeConcentration(rng, product.concentration, retailer.concentrationStyle),
    size_ml: size,
    price_aud: price,
    url: offerUrl(retailer, product.brand, product.name, product.concentration, size),
    in_stock: rng.chance(0.88),
    seen_at: new Date(Math.floor(seenAtMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}
