import { z } from 'zod';

/** `ingest` job: rebuild the catalogue index from an NDJSON file and swap the alias. */
export const IngestJobData = z.object({
  file: z.string().min(1),
  /** Start a (non-full) enrichment run once the new index is live. */
  enrich_after: z.boolean().default(true),
  /**
   * Swap even when the new index is much smaller than the live one or many lines were rejected
   * (the same guard as `ops catalogue ingest/import`, whose --allow-shrink this is).
   */
  allow_shrink: z.boolean().default(false),
});
export type IngestJobData = z.infer<typeof IngestJobData>;
/** What a caller enqueues (defaults filled in by the worker). */
export type IngestJobInput = z.input<typeof IngestJobData>;

export const RunTrigger = z.enum(['schedule', 'manual', 'ingest']);
export type RunTrigger = z.infer<typeof RunTrigger>;

/** `enrich-run` job: plan a run (scheduler entries carry `trigger: schedule`). */
export const EnrichRunJobData = z.object({
  full: z.boolean().default(false),
  trigger: RunTrigger.default('schedule'),
});
export type EnrichRunJobData = z.infer<typeof EnrichRunJobData>;

/** `enrich-batch` job: enrich these rows as of the run's start. */
export const EnrichBatchJobData = z.object({
  run_id: z.string().min(1),
  batch_no: z.number().int().min(0),
  full: z.boolean(),
  /** The run's reference time: every value and stamp a batch writes uses it, so redoing a batch changes nothing. */
  as_of: z.iso.datetime(),
  ids: z.array(z.string().min(1)).min(1),
});
export type EnrichBatchJobData = z.infer<typeof EnrichBatchJobData>;

/** What a batch reports back (job return value and run counters). */
export const EnricherCounts = z.object({
  changed: z.number().int().min(0),
  unchanged: z.number().int().min(0),
  failed: z.number().int().min(0),
});
export type EnricherCounts = z.infer<typeof EnricherCounts>;

export const BatchResult = z.object({
  seen: z.number().int().min(0),
  changed: z.number().int().min(0),
  unchanged: z.number().int().min(0),
  failed: z.number().int().min(0),
  /** Rows re-read and re-applied after a version conflict. */
  conflicts: z.number().int().min(0),
  per_enricher: z.record(z.string(), EnricherCounts),
});
export type BatchResult = z.infer<typeof BatchResult>;
