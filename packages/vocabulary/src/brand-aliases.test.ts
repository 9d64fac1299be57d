import { describe, expect, it } from 'vitest';
import { brandAliases, CURATED_BRAND_ALIASES } from './brand-aliases.ts';

describe('brandAliases', () => {
  it('gives the curated acronyms and short names', () => {
    expect(brandAliases('Yves Saint Laurent')).toEqual(expect.arrayContaining(['ysl', 'saint laurent']));
    expect(brandAliases('Dolce & Gabbana')).toEqual(expect.arrayContaining(['d g', 'dg', 'd and g', 'dolce and gabbana']));
    expect(brandAliases('Bvlgari')).toContain('bulgari');
    expect(brandAliases('Giorgio Armani')).toContain('armani');
    expect(brandAliases('Mugler')).toContain('thierry mugler');
  });

  it('derives initials of 3+ letters, short names and "and" from the brand itself', () => {
    expect(brandAliases('Maison Francis Kurkdjian')).toEqual(expect.arrayContaining(['mfk', 'francis kurkdjian']));
    expect(brandAliases('Comme des Garçons')).toContain('cdg');
    expect(brandAliases('Parfums de Marly')).toEqual(expect.arrayContaining(['pdm', 'marly']));
    expect(brandAliases('Some Unknown House')).toContain('suh');
    expect(brandAliases('Bath & Body Works')).toEqual(expect.arrayContaining(['bbw', 'bath and body works']));
    expect(brandAliases('bdk Parfums')).toContain('bdk');
    expect(brandAliases('Tom Ford')).toContain('tf');
    // Two-letter initials come only from the curated list: "am" would be a word.
    expect(brandAliases('Alex Martin')).not.toContain('am');
  });

  it('knows a brand by each " / " part and looks the curated list up by part', () => {
    expect(brandAliases('Al Haramain / الحرمين')).toContain('al haramain');
    expect(brandAliases('Yves Saint Laurent / YSL Beauté')).toContain('ysl');
  });

  it('never lists the brand itself', () => {
    for (const entry of CURATED_BRAND_ALIASES) expect(brandAliases(entry.brand)).not.toContain(entry.brand.toLowerCase());
  });

  it('names a source for every curated entry', () => {
    for (const entry of CURATED_BRAND_ALIASES) expect(entry.source.length).toBeGreaterThan(10);
  });
});
