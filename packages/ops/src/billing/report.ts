import type { Redis } from 'ioredis';
import { dateRange, monthRange, readDailyUsage, type ApiKeyRecord } from '@fragrance/api-keys';

/*
 * The monthly bill per API key, from the meter the gateway writes: the per-key, per-quota-day
 * counters that also enforce the daily quota (usage:<id>:<YYYY-MM-DD>, see docs/gateway.md).
 * Pricing (contract §8): a free tier of requests per key and month, then a price per 1,000.
 * Money is counted in whole ten-thousandths of a dollar and rounded to cents once per key, so
 * the report adds up exactly and never drifts by floating point.
 */

/** A price such as `0.05` (AU$ per 1,000 requests) in ten-thousandths of a dollar: 500. */
export function priceInTenThousandths(price: string): number {
  const match = /^(\d{1,6})(?:\.(\d{1,4}))?$/.exec(price);
  if (!match) throw new RangeError(`not a price with at most 4 decimals: ${price}`);
  return Number(match[1]) * 10_000 + Number((match[2] ?? '').padEnd(4, '0'));
}

/** Whole cents, as a decimal string: 1234 → "12.34". */
export const formatCents = (cents: bigint): string => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

export interface Pricing {
  /** Requests per key and month that cost nothing. */
  freeRequestsPerMonth: number;
  /** AU$ per 1,000 billable requests, in ten-thousandths of a dollar (0.05 → 500). */
  pricePer1000: number;
}

export interface BillLine {
  keyId: string;
  owner: string;
  revoked: boolean;
  requests: number;
  /** Requests the free tier covered: min(requests, free tier). */
  freeTierApplied: number;
  billableRequests: number;
  /** Rounded half up to whole cents. */
  amountCents: bigint;
}

/** One key's line of the bill for `requests` counted in the month. */
export function billLine(key: Pick<ApiKeyRecord, 'id' | 'owner' | 'revokedAt'>, requests: number, pricing: Pricing): BillLine {
  const freeTierApplied = Math.min(requests, pricing.freeRequestsPerMonth);
  const billableRequests = requests - freeTierApplied;
  // billable × price/1000 in ten-thousandths of a dollar = billable × price / 100,000 in cents.
  const amountCents = (BigInt(billableRequests) * BigInt(pricing.pricePer1000) + 50_000n) / 100_000n;
  return {
    keyId: key.id,
    owner: key.owner,
    revoked: key.revokedAt !== undefined,
    requests,
    freeTierApplied,
    billableRequests,
    amountCents,
  };
}

export interface MonthlyReport {
  month: string;
  from: string;
  to: string;
  lines: BillLine[];
  total: { requests: number; freeTierApplied: number; billableRequests: number; amountCents: bigint };
}

/**
 * Every key that made counted requests in `month` (YYYY-MM, quota days in the quota time zone),
 * revoked keys included, by owner then key id; keys without requests in the month owe nothing
 * and are left out.
 */
export async function monthlyReport(options: {
  redis: Redis;
  prefix: string;
  month: string;
  keys: readonly ApiKeyRecord[];
  pricing: Pricing;
}): Promise<MonthlyReport> {
  const { from, to } = monthRange(options.month);
  const days = dateRange(from, to);
  const usage = await Promise.all(options.keys.map((key) => readDailyUsage(options.redis, options.prefix, key.id, days)));
  const lines = options.keys
    .map((key, i) =>
      billLine(
        key,
        (usage[i] ?? []).reduce((sum, day) => sum + day.requests, 0),
        options.pricing,
      ),
    )
    .filter((line) => line.requests > 0)
    .sort((a, b) => a.owner.localeCompare(b.owner) || a.keyId.localeCompare(b.keyId));
  const total = lines.reduce(
    (sum, line) => ({
      requests: sum.requests + line.requests,
      freeTierApplied: sum.freeTierApplied + line.freeTierApplied,
      billableRequests: sum.billableRequests + line.billableRequests,
      amountCents: sum.amountCents + line.amountCents,
    }),
    { requests: 0, freeTierApplied: 0, billableRequests: 0, amountCents: 0n },
  );
  return { month: options.month, from, to, lines, total };
}
