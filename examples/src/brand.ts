// A brand's fragrances with their notes: `node examples/src/brand.ts <brand slug> [how many, default 10]`.
// Brand slugs come from /v1/brands (or /v1/suggest with types=brand).
import { createFragranceClient, FragranceApiError } from '@fragrance/client';
import { loadConfig } from './config.ts';
import { brandHeading } from './format.ts';

const [slug, count = '10'] = process.argv.slice(2);
if (!slug || !/^\d+$/.test(count)) {
  console.error('usage: node examples/src/brand.ts <brand slug> [how many, default 10]');
  process.exit(2);
}
const { FRAGRANCE_API_URL, FRAGRANCE_API_KEY } = loadConfig();
const client = createFragranceClient({ baseUrl: FRAGRANCE_API_URL, apiKey: FRAGRANCE_API_KEY, retryOn429: true });

try {
  const brand = await client.brand(slug);
  console.log(brandHeading(brand));
  // Most popular first; each detail (with its notes) is one request.
  const { data } = await client.search({ brand: brand.name, limit: Math.min(Number(count), 100) });
  for (const hit of data) {
    const { notes, year_released } = await client.fragrance(hit.id);
    console.log(`\n${hit.name} — ${hit.concentration}${year_released ? `, ${year_released}` : ''}`);
    console.log(`  top:   ${notes.top.join(', ') || '—'}`);
    console.log(`  heart: ${notes.heart.join(', ') || '—'}`);
    console.log(`  base:  ${notes.base.join(', ') || '—'}`);
  }
} catch (error) {
  if (!(error instanceof FragranceApiError)) throw error;
  console.error(error.code === 'not_found' ? `no brand has the slug ${slug}` : `refused: ${error.message}`);
  process.exit(1);
}
