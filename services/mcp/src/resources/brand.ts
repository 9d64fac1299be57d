import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { BrandDetail, BrandSlugParams, SearchResponse } from '@fragrance/contracts';
import { CatalogueRejectedError } from '../catalogue/catalogue.ts';
import { completeNames } from '../completions.ts';
import type { ToolContext } from '../tools/run.ts';
import { logRead } from './fragrance.ts';

export const BRAND_URI_TEMPLATE = 'fragrance://brands/{slug}';
/** How many of a brand's fragrances its resource carries (most voted first; the rest through search_fragrances). */
export const BRAND_RESOURCE_FRAGRANCES = 25;

export const brandUri = (slug: string) => `fragrance://brands/${encodeURIComponent(slug)}`;

/**
 * fragrance://brands/{slug}: a brand's profile (GET /v1/brands/{slug}) and its most voted
 * fragrances, as JSON. The slug variable completes from the suggestion index.
 */
export function registerBrandResource(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'brand',
    new ResourceTemplate(BRAND_URI_TEMPLATE, {
      // resources/list is served by our own paginated handler (resources/list.ts), which lists the top brands.
      list: undefined,
      complete: { slug: (typed) => completeNames(ctx, 'brand', typed, 'slug') },
    }),
    {
      title: 'Brand profile',
      description: `A brand as JSON: its profile (country, counts, top accords and notes, perfumers, years) and its ${BRAND_RESOURCE_FRAGRANCES} most voted fragrances.`,
      mimeType: 'application/json',
    },
    async (uri, { slug }) => {
      const value = decodeURIComponent(String(Array.isArray(slug) ? slug[0] : slug));
      const parsed = BrandSlugParams.safeParse({ slug: value });
      if (!parsed.success) throw new ResourceNotFoundError(uri.href, `Resource ${uri.href} not found: not a brand slug.`);
      let profile: BrandDetail;
      try {
        profile = BrandDetail.parse(await ctx.catalogue.brand(parsed.data.slug));
      } catch (error) {
        if (error instanceof CatalogueRejectedError && error.status === 404)
          throw new ResourceNotFoundError(uri.href, `Resource ${uri.href} not found.`);
        throw error;
      }
      const fragrances = SearchResponse.parse(
        await ctx.catalogue.search({ brand: profile.name, sort: 'votes', limit: BRAND_RESOURCE_FRAGRANCES }),
      );
      logRead(ctx, uri.href);
      const body = { brand: profile, fragrances: { total: fragrances.total, top: fragrances.data } };
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body) }] };
    },
  );
}
