import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, createAdmitter, createKeyStore, monthRange, type KeyStore } from '@fragrance/api-keys';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { formatCents, billLine, priceInTenThousandths } from '../billing/report.ts';
import { UsageError, type CommandContext } from '../command.ts';
import { billingGroup } from './billing.ts';

/** Last month (UTC): complete, and well inside the 400 days the counters are kept. */
const today = new Date().toISOString().slice(0, 10);
const month = addDays(`${today.slice(0, 7)}-01`, -1).slice(0, 7);
const { from: firstDay, to: lastDay } = monthRange(month);

describe('ops billing report (real Redis)', () => {
  let redis: TestRedis;
  let store: KeyStore;
  /** Requests this test counted, per key, inside the month. */
  const made = new Map<string, number>();

  beforeAll(async () => {
    redis = await testRedis('ops-billing');
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
    let now = 0;
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 1_000, refillPerSecond: 1_000 },
      clock: () => now,
    });
    // Counted the way the gateway counts: single requests, and exports charged several at once.
    async function count(apiKey: string, day: string, units: number[]): Promise<void> {
      now = Date.parse(`${day}T12:00:00Z`);
      for (const n of units) expect((await admit(apiKey, 'admit', n)).outcome).toBe('admitted');
    }
    const big = await store.create({ owner: 'Acme Perfumery, Pty "Ltd"', quota: 1_000_000 });
    const small = await store.create({ owner: 'Beta Scents', quota: 1_000 });
    const gone = await store.create({ owner: 'Gamma', quota: 1_000_000 });
    await store.create({ owner: 'Idle', quota: 100 });
    await count(big.apiKey, firstDay, [5_000, 1, 1]);
    await count(big.apiKey, addDays(firstDay, 14), [2_000]);
    await count(big.apiKey, lastDay, [5_343]);
    await count(big.apiKey, addDays(firstDay, -1), [9_999]); // the month before: not billed here
    await count(
      small.apiKey,
      lastDay,
      Array.from({ length: 40 }, () => 1),
    );
    await count(small.apiKey, addDays(lastDay, 1), [500]); // the month after
    await count(gone.apiKey, addDays(firstDay, 3), [25_000]);
    await store.revoke(gone.record.id);
    made.set(big.record.id, 12_345).set(small.record.id, 40).set(gone.record.id, 25_000);
  });
  afterAll(() => redis.cleanup());

  async function run(argv: string[], env: Record<string, string> = {}): Promise<string> {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ctx: CommandContext = {
      argv,
      env: { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, ...env },
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    };
    await billingGroup.commands.report!.run(ctx);
    return Buffer.concat(chunks).toString();
  }

  it("bills a month's counted requests per key, as counted (CSV)", async () => {
    const rows = parse<Record<string, string>>(await run(['--month', month, '--csv']), { columns: true });
    const ids = [...made.keys()];
    expect(rows.map((row) => row.key_id).sort()).toEqual(ids.sort());
    for (const row of rows) expect(Number(row.requests)).toBe(made.get(row.key_id!));
    const byOwner = Object.fromEntries(rows.map((row) => [row.owner, row]));
    // Defaults: 10,000 free per key and month, then AU$0.05 per 1,000.
    expect(byOwner['Acme Perfumery, Pty "Ltd"']).toEqual({
      month,
      key_id: expect.any(String) as string,
      owner: 'Acme Perfumery, Pty "Ltd"',
      revoked: 'false',
      requests: '12345',
      free_tier_applied: '10000',
      billable_requests: '2345',
      price_per_1000_aud: '0.05',
      amount_aud: '0.12', // 2,345 × 0.05 / 1,000 = 0.11725
    });
    expect(byOwner['Beta Scents']).toMatchObject({ requests: '40', free_tier_applied: '40', billable_requests: '0', amount_aud: '0.00' });
    expect(byOwner.Gamma).toMatchObject({ revoked: 'true', requests: '25000', billable_requests: '15000', amount_aud: '0.75' });
  });

  it('prints a readable table with totals, and takes the free tier and price from the configuration', async () => {
    const table = await run(['--month', month], { BILLING_FREE_REQUESTS_PER_MONTH: '0', BILLING_PRICE_PER_1000_REQUESTS_AUD: '1.5' });
    expect(table).toContain(`billing report ${month}: quota days ${firstDay} to ${lastDay} in UTC`);
    expect(table).toContain('free tier 0 requests per key and month, then AU$1.5 per 1,000');
    // 12,345 × 1.5 / 1,000 = 18.5175 → 18.52; 40 → 0.06; 25,000 → 37.50; total 56.08.
    expect(table).toMatch(/Acme Perfumery, Pty "Ltd"\s+12,345\s+0\s+12,345\s+18\.52/);
    expect(table).toMatch(/Beta Scents\s+40\s+0\s+40\s+0\.06/);
    expect(table).toMatch(/\(revoked\)\s+Gamma\s+25,000\s+0\s+25,000\s+37\.50/);
    expect(table).toMatch(/total\s+37,385\s+0\s+37,385\s+56\.08/);
    expect(table).not.toContain('Idle');
  });

  it('refuses a month it cannot bill and a bad price', async () => {
    await expect(run([])).rejects.toThrow(UsageError);
    await expect(run(['--month', '2026-13'])).rejects.toThrow(/YYYY-MM/);
    await expect(run(['--month', addDays(today, 40).slice(0, 7)])).rejects.toThrow(/has not started/);
    await expect(run(['--month', '2019-01'])).rejects.toThrow(/older than the usage kept/);
    await expect(run(['--month', month], { BILLING_PRICE_PER_1000_REQUESTS_AUD: '0.001234' })).rejects.toThrow(
      /BILLING_PRICE_PER_1000_REQUESTS_AUD/,
    );
  });
});

describe('bill arithmetic', () => {
  it('rounds each line half up to the cent, exactly', () => {
    const pricing = { freeRequestsPerMonth: 10_000, pricePer1000: priceInTenThousandths('0.05') };
    const key = { id: 'key_0000000000000000', owner: 'x' };
    expect(priceInTenThousandths('0.05')).toBe(500);
    expect(priceInTenThousandths('12')).toBe(120_000);
    expect(billLine(key, 9_999, pricing)).toMatchObject({ freeTierApplied: 9_999, billableRequests: 0, amountCents: 0n });
    expect(billLine(key, 10_100, pricing).amountCents).toBe(1n); // 0.005 → 0.01
    expect(billLine(key, 10_099, pricing).amountCents).toBe(0n); // 0.00495 → 0.00
    expect(formatCents(billLine(key, 31 * 1_000_000_000, pricing).amountCents)).toBe('1549999.50');
    expect(() => priceInTenThousandths('0.00001')).toThrow(RangeError);
  });
});
