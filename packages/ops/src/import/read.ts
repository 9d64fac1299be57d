import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import type { SourceLine } from '@fragrance/search';
import { CSV_LAYOUTS, type ImportFormat } from './layouts.ts';
import { RejectedLine } from './normalise.ts';

/** The file's header does not fit the layout: nothing is imported. */
export class LayoutError extends Error {
  readonly code = 'layout_mismatch';
}

/**
 * Reads a public CSV layout as records, streaming (csv-parse; memory stays at one row however
 * long the file). A row that does not parse (odd quoting, wrong number of fields) or does not map
 * (missing name, rating off the scale, …) is yielded as an error with its line, and reading goes
 * on. A header that is not the layout's throws LayoutError before any row.
 */
export async function* readCsv(file: string, format: Exclude<ImportFormat, 'ndjson'>, importedAt: string): AsyncGenerator<SourceLine> {
  const layout = CSV_LAYOUTS[format];
  const skipped: SourceLine[] = [];
  const parser = createReadStream(file).pipe(
    parse({
      delimiter: layout.delimiter,
      bom: true,
      info: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      columns: (header: string[]) => {
        const names = header.map((h) => h.trim());
        const missing = layout.columns.filter((c) => !names.includes(c));
        if (missing.length > 0) throw new LayoutError(`not a ${format} file: its header lacks ${missing.join(', ')}`);
        return names;
      },
      on_skip: (error) => {
        if (!error) return;
        const { lines } = error as unknown as { lines?: number };
        skipped.push({ line: lines ?? 0, error: `${error.code}: ${error.message.replace(/^Invalid Record Length: /, '')}` });
      },
    }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string | undefined>; info: { lines: number } }>) {
      while (skipped.length > 0) yield skipped.shift()!;
      try {
        yield { line: info.lines, value: layout.toRecord(record, importedAt) };
      } catch (error) {
        if (!(error instanceof RejectedLine)) throw error;
        yield { line: info.lines, error: error.message };
      }
    }
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof LayoutError) throw cause;
    throw error;
  }
  while (skipped.length > 0) yield skipped.shift()!;
}
