import type { Client, estypes } from '@elastic/elasticsearch';
import { exportRequests, parseExportAfter, type ExportPlan, type ExportQuery, type FragranceDetail } from '@fragrance/contracts';
import { HELPER_OBJECTS } from './mapping.ts';
import { SORT_ORDERS, updatedSinceFilter } from './sort.ts';

/** Records fetched per search_after page while exporting: bounds what one export holds in memory. */
export const EXPORT_PAGE_SIZE = 1000;

/** An export's order: the `updated` order, so a mirror can resume from its last record. */
const EXPORT_SORT = SORT_ORDERS.updated.sort;

function exportFilter(params: ExportQuery): estypes.QueryDslQueryContainer {
  const filter: estypes.QueryDslQueryContainer[] = [];
  if (params.updated_since !== undefined) filter.push(updatedSinceFilter(params.updated_since));
  const after = params.after === undefined ? undefined : parseExportAfter(params.after);
  if (after) {
    // (updated_at, id) strictly after the resume point: the same condition search_after applies,
    // written as a query so the plan's count and the stream agree.
    filter.push({
      bool: {
        should: [
          { range: { updated_at: { gt: after.updatedAt, format: 'epoch_millis' } } },
          { bool: { filter: [{ term: { updated_at: after.updatedAt } }, { range: { id: { gt: after.id } } }] } },
        ],
        minimum_should_match: 1,
      },
    });
  }
  return filter.length ? { bool: { filter } } : { match_all: {} };
}

/** How many records an export of these parameters streams, and how many requests it is billed as. */
export async function planExport(client: Client, alias: string, params: ExportQuery): Promise<ExportPlan> {
  const { count } = await client.count({ index: alias, query: exportFilter(params) });
  return { records: count, requests: exportRequests(count) };
}

/**
 * Every record matching `params` in full detail, in (updated_at, id) order, read page by page
 * through a point in time: the export sees one catalogue version even if the alias is swapped
 * mid-way, and holds at most one page in memory. Stop iterating (break/return) to end it early;
 * the point in time is closed either way.
 */
export async function* exportRecords(
  client: Client,
  alias: string,
  params: ExportQuery,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<FragranceDetail[], void, undefined> {
  const pit = await client.openPointInTime({ index: alias, keep_alive: '2m' });
  let pitId = pit.id;
  try {
    const query = exportFilter(params);
    let after: estypes.SortResults | undefined;
    for (;;) {
      const response = await client.search<FragranceDetail>({
        pit: { id: pitId, keep_alive: '2m' },
        query,
        sort: [...EXPORT_SORT],
        size: pageSize,
        track_total_hits: false,
        _source: { excludes: [...HELPER_OBJECTS] },
        ...(after ? { search_after: after } : {}),
      });
      if (response.pit_id) pitId = response.pit_id;
      const hits = response.hits.hits;
      if (hits.length === 0) return;
      yield hits.map((hit) => hit._source!);
      after = hits.at(-1)?.sort;
      if (hits.length < pageSize) return;
    }
  } finally {
    await client.closePointInTime({ id: pitId }).catch(() => undefined);
  }
}
