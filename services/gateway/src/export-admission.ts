import type { RequestHandler } from 'express';
import { request, type Agent } from 'undici';
import { ExportPlan } from '@fragrance/contracts';
import { UpstreamError } from '@fragrance/http';

/** The catalogue's internal route that sizes an export (not public: only the gateway calls it). */
const EXPORT_PLAN_PATH = '/internal/fragrances/export/plan';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Sizes an export before it is admitted: asks the catalogue how many records these parameters
 * stream and how many counted requests that is (one per 1,000, at least one), sets that as the
 * request's cost (res.locals.units, charged whole by the admission that follows) and as the
 * Export-Records / Export-Requests headers. A bad parameter is answered with the catalogue's own
 * problem+json, free of charge; the key was authenticated before this runs.
 */
export function sizeExport(options: { upstream: string; agent: Agent; timeoutMs: number }): RequestHandler {
  return async (req, res, next) => {
    const at = req.originalUrl.indexOf('?');
    const query = at === -1 ? '' : req.originalUrl.slice(at);
    let answer;
    try {
      answer = await request(`${options.upstream}${EXPORT_PLAN_PATH}${query}`, {
        dispatcher: options.agent,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
    } catch (error) {
      next(new UpstreamError(503, 'The catalogue cannot size this export right now; try again shortly.', error));
      return;
    }
    const body = await answer.body.text();
    if (answer.statusCode >= 400 && answer.statusCode < 500) {
      res
        .status(answer.statusCode)
        .type(String(answer.headers['content-type'] ?? 'application/problem+json'))
        .send(body);
      return;
    }
    const plan = answer.statusCode === 200 ? ExportPlan.safeParse(parseJson(body)) : undefined;
    if (!plan?.success) {
      next(new UpstreamError(answer.statusCode === 503 ? 503 : 502, 'The catalogue could not size this export.'));
      return;
    }
    res.locals.units = plan.data.requests;
    res.setHeader('Export-Records', String(plan.data.records));
    res.setHeader('Export-Requests', String(plan.data.requests));
    next();
  };
}
