import { ProtocolError, ProtocolErrorCode, type ListResourcesResult, type McpServer, type Resource } from '@modelcontextprotocol/server';
import { BrandList } from '@fragrance/contracts';
import type { ToolContext } from '../tools/run.ts';
import { VIEW_RESOURCES } from '../apps/views.ts';
import { brandUri } from './brand.ts';
import { FIXED_RESOURCES } from './fixed.ts';

/** Entries per resources/list page. */
export const RESOURCE_PAGE_SIZE = 20;
/**
 * The list stays small: the fixed resources and the brands with the most fragrances. Every other
 * brand and every fragrance is reachable through the templates (and their completions), never by
 * listing 75k entries.
 */
export const LISTED_BRANDS = 100;

/** What the list starts with: the fixed resources, then the MCP App views (neither needs the catalogue). */
const LEADING: readonly Resource[] = [...FIXED_RESOURCES, ...VIEW_RESOURCES];

/** A page position, opaque to clients: base64url of the index of the first entry. */
const cursorOf = (position: number) => Buffer.from(JSON.stringify({ p: position })).toString('base64url');

function positionOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { p } = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { p?: unknown };
    if (typeof p === 'number' && Number.isInteger(p) && p > 0 && p < LEADING.length + LISTED_BRANDS) return p;
  } catch {
    // fall through: not one of our cursors
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass a nextCursor from a previous resources/list, or none.');
}

/** One resources/list page: fixed resources and views first, then the top brands (one catalogue read per page). */
export async function listResourcesPage(ctx: ToolContext, cursor: string | undefined): Promise<ListResourcesResult> {
  const start = positionOf(cursor);
  const end = Math.min(start + RESOURCE_PAGE_SIZE, LEADING.length + LISTED_BRANDS);
  const resources: Resource[] = LEADING.slice(start, end);
  const brandStart = Math.max(0, start - LEADING.length);
  const brandCount = end - LEADING.length - brandStart;
  let more = true;
  if (brandCount > 0) {
    let page: BrandList;
    try {
      page = BrandList.parse(await ctx.catalogue.brands({ offset: brandStart, limit: brandCount }));
    } catch (error) {
      // The fixed resources, the views and the templates do not need the catalogue: list them without brands, not fail.
      ctx.logger.warn({ err: error, request_id: ctx.requestId }, 'resources/list without brands: catalogue unavailable');
      return { resources };
    }
    for (const brand of page.data) {
      resources.push({
        uri: brandUri(brand.slug),
        name: brand.slug,
        title: brand.name,
        description: `${brand.name} (${brand.country}): ${brand.fragrance_count} fragrances; ${brand.top_accords.join(', ')}.`,
        mimeType: 'application/json',
      });
    }
    more = brandStart + page.data.length < Math.min(page.total, LISTED_BRANDS);
  }
  return { resources, ...(more && end < LEADING.length + LISTED_BRANDS ? { nextCursor: cursorOf(end) } : {}) };
}

/** Replaces the SDK's resources/list (which has no paging and would call every template's list). */
export function registerResourceList(server: McpServer, ctx: ToolContext): void {
  server.server.setRequestHandler('resources/list', (request) => listResourcesPage(ctx, request.params?.cursor));
}
