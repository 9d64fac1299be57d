import { z } from 'zod';
import { NonNegativeInteger } from './numbers.ts';

/**
 * Orders of GET /v1/fragrances. Each ends in a unique tie-breaker (the record id), so the order
 * is total and stable and cursors page through it without a duplicate or a gap.
 */
export const SORTS = ['relevance', 'rating', 'votes', 'newest', 'oldest', 'name', 'updated'] as const;
export type Sort = (typeof SORTS)[number];

export const SORT_DESCRIPTION =
  'Order of the hits. `relevance` (default with `query`): best match first, ties by votes; without `query` every hit matches equally, so it orders as `votes`. ' +
  '`rating`: highest average first, unrated last. `votes` (default without `query`): most votes first. `newest` / `oldest`: by year released, unknown years last. ' +
  '`name`: A–Z, case- and accent-insensitive. `updated`: least recently changed first, for mirroring with `updated_since`. Every order ends in the record id, so it is total and cursors work with each.';

/** RFC 3339 date-time with a time zone (Z or ±hh:mm), as `updated_since` takes it. */
export const Rfc3339 = z.iso.datetime({ offset: true, error: 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z' });

export const UPDATED_SINCE_DESCRIPTION =
  'Only records changed at or after this instant (RFC 3339 with a time zone, e.g. 2026-01-31T00:00:00Z): every ingest that changes a record and every enrichment run that changes one moves its `updated_at`. With `sort=updated` and `cursor`, a client mirrors the catalogue: keep the greatest `updated_at` seen and start the next sync from it.';

/** Records of an export billed as one request (rounded up; an empty export costs one). */
export const EXPORT_RECORDS_PER_REQUEST = 1000;

/** The date-time pattern `Rfc3339` validates with (calendar-exact), read off its own JSON Schema. */
const RFC3339_SOURCE = (z.toJSONSchema(Rfc3339) as { pattern: string }).pattern.replace(/^\^|\$$/g, '');

/**
 * Resume point of an export: the `updated_at` and `id` of the last complete line received, as
 * `<updated_at>,<id>`. Not signed: both halves are public data of a record the client holds. One
 * regular expression, so the OpenAPI document's `pattern` says exactly what is accepted.
 */
const EXPORT_AFTER = new RegExp(`^(${RFC3339_SOURCE}),([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$`);

export function parseExportAfter(after: string): { updatedAt: number; id: string } | undefined {
  const match = EXPORT_AFTER.exec(after);
  const time = match?.[1];
  const id = match?.at(-1);
  if (time === undefined || id === undefined) return undefined;
  const updatedAt = Date.parse(time);
  return Number.isFinite(updatedAt) ? { updatedAt, id: id.toLowerCase() } : undefined;
}

/** Query parameters of GET /v1/fragrances/export. */
export const ExportQuery = z
  .strictObject({
    updated_since: Rfc3339.optional().meta({
      description: 'Only records changed at or after this instant (RFC 3339 with a time zone); all records without it.',
      examples: ['2026-01-31T00:00:00Z'],
    }),
    after: z
      .string()
      .regex(EXPORT_AFTER, { error: 'must be "<updated_at>,<id>" of the last record received, e.g. 2026-01-31T10:00:00.000Z,0b6c…' })
      .optional()
      .meta({
        description:
          'Resume an interrupted export: `<updated_at>,<id>` of the last complete line received. The export continues with the records after it in (updated_at, id) order.',
        examples: ['2026-01-31T10:00:00.000Z,6f1c2b8e-2f43-4b8a-9a51-0d3f0c6f8a10'],
      }),
  })
  .meta({ id: 'ExportQuery' });
export type ExportQuery = z.output<typeof ExportQuery>;

/** What an export of these parameters would stream and cost (the gateway's billing input). */
export const ExportPlan = z
  .object({
    records: NonNegativeInteger,
    requests: z
      .number()
      .int()
      .min(1)
      .meta({ description: `Counted requests: ceil(records / ${EXPORT_RECORDS_PER_REQUEST}), at least 1.` }),
  })
  .meta({ id: 'ExportPlan' });
export type ExportPlan = z.infer<typeof ExportPlan>;

export function exportRequests(records: number): number {
  return Math.max(1, Math.ceil(records / EXPORT_RECORDS_PER_REQUEST));
}
