import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { parseConfig, redisConnectionFields, redisPrefix, timeZone } from '@fragrance/config';
import { addDays, createKeyStore, localDate, monthRange, USAGE_RETENTION_DAYS } from '@fragrance/api-keys';
import { formatCents, monthlyReport, priceInTenThousandths, type MonthlyReport } from '../billing/report.ts';
import { parseOptions, UsageError, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { withRedis } from '../redis.ts';

/** What `billing` reads: the gateway's Redis and quota zone, and the pricing (contract §8). */
export const BillingConfig = z.object({
  ...redisConnectionFields(),
  REDIS_PREFIX: redisPrefix(),
  QUOTA_TIMEZONE: timeZone('UTC'),
  /** Requests per key and calendar month that are free. */
  BILLING_FREE_REQUESTS_PER_MONTH: z.coerce.number().int('must be a whole number').min(0, 'must be ≥ 0').default(10_000),
  /** AU$ per 1,000 requests after the free tier, at most 4 decimals. */
  BILLING_PRICE_PER_1000_REQUESTS_AUD: z
    .string()
    .regex(/^\d{1,6}(?:\.\d{1,4})?$/, 'must be an amount in AU$ with at most 4 decimals, e.g. 0.05')
    .default('0.05'),
});
export type BillingConfig = z.infer<typeof BillingConfig>;

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The month to bill: not in the future, and not older than the usage counters are kept. */
function billableMonth(raw: string | undefined, today: string): string {
  if (raw === undefined) throw new UsageError('--month is required, e.g. --month 2026-10');
  if (!MONTH.test(raw)) throw new UsageError(`--month must be a month YYYY-MM, e.g. 2026-10, got "${raw}"`);
  const { from } = monthRange(raw);
  if (from > today) throw new UsageError(`--month ${raw} has not started yet (today is ${today})`);
  const oldestKept = addDays(today, -(USAGE_RETENTION_DAYS - 1));
  if (from < oldestKept) {
    throw new UsageError(
      `--month ${raw} is older than the usage kept (${USAGE_RETENTION_DAYS} days, from ${oldestKept}): it cannot be billed`,
    );
  }
  return raw;
}

const count = (n: number) => n.toLocaleString('en-AU');

function text(report: MonthlyReport, config: BillingConfig, partial: boolean): string {
  const head = [
    `billing report ${report.month}${partial ? ' (month to date)' : ''}: quota days ${report.from} to ${report.to} in ${config.QUOTA_TIMEZONE}`,
    `free tier ${count(config.BILLING_FREE_REQUESTS_PER_MONTH)} requests per key and month, then AU$${config.BILLING_PRICE_PER_1000_REQUESTS_AUD} per 1,000`,
    '',
  ];
  if (report.lines.length === 0) return [...head, 'no counted requests this month'].join('\n');
  const rows = [
    ['key', 'owner', 'requests', 'free tier', 'billable', 'amount AUD'],
    ...report.lines.map((line) => [
      line.keyId + (line.revoked ? ' (revoked)' : ''),
      line.owner,
      count(line.requests),
      count(line.freeTierApplied),
      count(line.billableRequests),
      formatCents(line.amountCents),
    ]),
    [
      'total',
      '',
      count(report.total.requests),
      count(report.total.freeTierApplied),
      count(report.total.billableRequests),
      formatCents(report.total.amountCents),
    ],
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  // Names left-aligned, numbers right-aligned.
  const format = (row: string[]) =>
    row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [...head, ...rows.map(format)].join('\n');
}

/** CSV for spreadsheets and invoicing: one row per key, plain numbers, amounts to the cent. */
function csv(report: MonthlyReport, config: BillingConfig): string {
  return stringify(
    report.lines.map((line) => ({
      month: report.month,
      key_id: line.keyId,
      owner: line.owner,
      revoked: line.revoked,
      requests: line.requests,
      free_tier_applied: line.freeTierApplied,
      billable_requests: line.billableRequests,
      price_per_1000_aud: config.BILLING_PRICE_PER_1000_REQUESTS_AUD,
      amount_aud: formatCents(line.amountCents),
    })),
    {
      header: true,
      columns: [
        'month',
        'key_id',
        'owner',
        'revoked',
        'requests',
        'free_tier_applied',
        'billable_requests',
        'price_per_1000_aud',
        'amount_aud',
      ],
      cast: { boolean: (value) => String(value) },
    },
  );
}

const report: Command = {
  summary: 'Per key for a month: requests, free tier applied, billable requests, amount (AU$)',
  usage: 'billing report --month YYYY-MM [--csv]',
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, { month: { type: 'string' }, csv: { type: 'boolean', default: false } });
    const config = parseConfig(BillingConfig, ctx.env);
    const today = localDate(Date.now(), config.QUOTA_TIMEZONE);
    const month = billableMonth(values.month, today);
    const pricing = {
      freeRequestsPerMonth: config.BILLING_FREE_REQUESTS_PER_MONTH,
      pricePer1000: priceInTenThousandths(config.BILLING_PRICE_PER_1000_REQUESTS_AUD),
    };
    const result = await withRedis(config, async (redis) => {
      const keys = await createKeyStore({ redis, prefix: config.REDIS_PREFIX }).list();
      return monthlyReport({ redis, prefix: config.REDIS_PREFIX, month, keys, pricing });
    });
    ctx.stdout.write(values.csv ? csv(result, config) : `${text(result, config, today <= result.to)}\n`);
  },
};

/** `billing` commands: what each key owes, read from the gateway's usage meter. */
export const billingGroup: CommandGroup = {
  summary: 'Billing: monthly report per API key from the usage meter',
  commands: { report },
};
