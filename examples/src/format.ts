// What the examples print, kept apart from their requests so it is tested on its own.

/** "Maison X (FR): 12 fragrances"; a brand without a known country gets no parentheses. */
export function brandHeading(brand: { name: string; country?: string | null; fragrance_count: number }): string {
  const where = brand.country ? ` (${brand.country})` : '';
  return `${brand.name}${where}: ${brand.fragrance_count} ${brand.fragrance_count === 1 ? 'fragrance' : 'fragrances'}`;
}
