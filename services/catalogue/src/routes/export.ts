import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Client } from '@elastic/elasticsearch';
import { Router } from 'express';
import { ExportQuery, type FragranceDetail } from '@fragrance/contracts';
import { MethodNotAllowedError, type Logger } from '@fragrance/http';
import { exportRecords, planExport } from '@fragrance/search';
import { parseQuery } from '../params.ts';

/** Path the gateway asks for an export's size before admitting it; not a public route. */
export const EXPORT_PLAN_PATH = '/internal/fragrances/export/plan';

/** Writes and waits for the buffer to drain, or for the client to go away (no drain then). */
async function write(out: Writable, chunk: string, gone: AbortSignal): Promise<void> {
  if (out.write(chunk) || gone.aborted) return;
  await once(out, 'drain', { signal: gone }).catch(() => undefined);
}

/**
 * GET /v1/fragrances/export: NDJSON, one full FragranceDetail per line, in (updated_at, id)
 * order, gzip-compressed when the client accepts it. Memory stays at one page of records: each
 * page is written and drained before the next is read. Errors before the first byte are
 * problem+json; after it, the response is cut (a client sees a truncated last line and resumes
 * with `after`).
 */
export function exportRoutes(client: Client, alias: string, logger: Logger): Router {
  const router = Router();

  router.get(EXPORT_PLAN_PATH, async (req, res) => {
    const params = parseQuery(req, ExportQuery);
    res.json(await planExport(client, alias, params));
  });

  router.get('/v1/fragrances/export', async (req, res) => {
    const params = parseQuery(req, ExportQuery);
    const pages = exportRecords(client, alias, params);
    // Before the first byte a failure is still a problem+json answer (upstream-problem.ts).
    const first: IteratorResult<FragranceDetail[]> = await pages.next();
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Accept-Encoding');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    const out: Writable = gzip ? createGzip() : res;
    if (gzip) (out as ReturnType<typeof createGzip>).pipe(res);
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    let records = 0;
    try {
      for (let page = first; !page.done && !gone.signal.aborted; page = await pages.next()) {
        let text = '';
        for (const record of page.value) text += `${JSON.stringify(record)}\n`;
        records += page.value.length;
        await write(out, text, gone.signal);
      }
      out.end();
    } catch (error) {
      (req.log ?? logger).warn({ err: error, records }, 'export ended early');
      res.destroy();
    } finally {
      await pages.return();
    }
  });

  router.all(['/v1/fragrances/export', EXPORT_PLAN_PATH], (req) => {
    throw new MethodNotAllowedError(['GET', 'HEAD'], `${req.method} is not supported here; the API is read-only.`);
  });
  return router;
}
