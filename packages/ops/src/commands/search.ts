import { z } from 'zod';
import { parseConfig, redisConnectionFields, redisPrefix, timeZone } from '@fragrance/config';
import { addDays, localDate } from '@fragrance/api-keys';
import { SEARCH_USAGE_DEFAULT_LIMIT, SEARCH_USAGE_MAX_DAYS, SEARCH_USAGE_MAX_LIMIT, type QueryCount } from '@fragrance/contracts';
import { listSearchOwners, readSearchReport, type SearchReport } from '@fragrance/search-analytics';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { withRedis } from '../redis.ts';

/** What `search report` reads: the gateway's Redis, its key prefix and quota zone. */
export const SearchReportConfig = z.object({
  ...redisConnectionFields(),
  REDIS_PREFIX: redisPrefix(),
  QUOTA_TIMEZONE: timeZone('UTC'),
});
export type SearchReportConfig = z.infer<typeof SearchReportConfig>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The quota day to report: today by default, never in the future nor older than the counters are kept. */
function reportDay(raw: string | undefined, today: string): string {
  if (raw === undefined) return today;
  let valid = DATE.test(raw);
  if (valid) {
    try {
      addDays(raw, 0);
    } catch {
      valid = false;
    }
  }
  if (!valid) throw new UsageError(`--day must be a date YYYY-MM-DD, e.g. ${today}, got "${raw}"`);
  if (raw > today) throw new UsageError(`--day ${raw} is after today (${today})`);
  const oldest = addDays(today, -(SEARCH_USAGE_MAX_DAYS - 1));
  if (raw < oldest)
    throw new UsageError(`--day ${raw} is older than the search counters are kept (${SEARCH_USAGE_MAX_DAYS} days, from ${oldest})`);
  return raw;
}

const count = (n: number) => n.toLocaleString('en-AU');
const share = (part: number, whole: number) => (whole === 0 ? '' : ` (${((100 * part) / whole).toFixed(1)} %)`);

function list(title: string, queries: QueryCount[]): string[] {
  if (queries.length === 0) return [`  ${title}: none`];
  const width = Math.max(...queries.map((q) => count(q.count).length));
  return [`  ${title}:`, ...queries.map((q) => `    ${count(q.count).padStart(width)}  ${q.query}`)];
}

function text(day: string, config: SearchReportConfig, reports: SearchReport[], owner: string | undefined): string {
  const head = `search report ${day} (quota day in ${config.QUOTA_TIMEZONE})`;
  if (reports.length === 0)
    return [head, '', owner === undefined ? 'no searches counted that day' : `no searches counted for ${owner} that day`].join('\n');
  const sections = reports.map((r) =>
    [
      `${r.owner}: ${count(r.searches)} searches, ${count(r.zeroResults)} found nothing${share(r.zeroResults, r.searches)}, ${count(r.relaxed)} relaxed${share(r.relaxed, r.searches)}`,
      ...list('top queries', r.topQueries),
      ...list('found nothing', r.zeroResultQueries),
      ...list('relaxed', r.relaxedQueries),
    ].join('\n'),
  );
  return [head, '', sections.join('\n\n')].join('\n');
}

const report: Command = {
  summary: 'Per key owner for a day: most frequent queries, queries that found nothing, queries that were relaxed',
  usage: 'search report [--owner <name>] [--day YYYY-MM-DD] [--limit 1..100] [--json]',
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, {
      owner: { type: 'string' },
      day: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const config = parseConfig(SearchReportConfig, ctx.env);
    const today = localDate(Date.now(), config.QUOTA_TIMEZONE);
    const day = reportDay(values.day, today);
    const limit = wholeNumberOption('--limit', values.limit, 1, SEARCH_USAGE_MAX_LIMIT) ?? SEARCH_USAGE_DEFAULT_LIMIT;
    const owner = values.owner;
    const reports = await withRedis(config, async (redis) => {
      const owners = owner === undefined ? await listSearchOwners(redis, config.REDIS_PREFIX, day) : [owner];
      const read = await Promise.all(owners.map((name) => readSearchReport(redis, config.REDIS_PREFIX, { owner: name, day, limit })));
      return read.filter((r) => r.searches > 0);
    });
    ctx.stdout.write(
      values.json
        ? `${JSON.stringify({ day, time_zone: config.QUOTA_TIMEZONE, limit, owners: reports })}\n`
        : `${text(day, config, reports, owner)}\n`,
    );
  },
};

/** `search` commands: what customers search for, from the gateway's search counters (packages/search-analytics). */
export const searchGroup: CommandGroup = {
  summary: 'Search analytics: top, zero-result and relaxed queries per key owner and day',
  commands: { report },
};
