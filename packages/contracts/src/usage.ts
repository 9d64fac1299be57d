import { z } from 'zod';
import { NonNegativeInteger } from './numbers.ts';

/** How far back GET /v1/usage reaches: today and the 89 quota days before it. */
export const USAGE_MAX_DAYS = 90;
/** Days shown when `from` is absent: the last 30 quota days, ending at `to`. */
export const USAGE_DEFAULT_DAYS = 30;

/** The public id of an API key (never the key itself), as invoices name it. */
const KeyId = z
  .string()
  .regex(/^key_[0-9a-f]{16}$/, { error: 'must be a key id such as key_3f9a1c2b4d5e6f70' })
  .meta({ examples: ['key_3f9a1c2b4d5e6f70'] });

const CalendarDate = z.iso.date({ error: 'must be a calendar date YYYY-MM-DD, e.g. 2026-11-01' });

/** Query parameters of GET /v1/usage; the range rules that depend on today are checked by the gateway. */
export const UsageQuery = z
  .strictObject({
    from: CalendarDate.optional().meta({
      description: `First quota day to include (YYYY-MM-DD in the quota time zone); at most ${USAGE_MAX_DAYS - 1} days before today. Default: ${USAGE_DEFAULT_DAYS - 1} days before \`to\` (or the oldest day kept, if later).`,
      examples: ['2026-11-01'],
    }),
    to: CalendarDate.optional().meta({
      description: 'Last quota day to include (YYYY-MM-DD in the quota time zone), not after today and not before `from`. Default: today.',
      examples: ['2026-11-30'],
    }),
    key_id: KeyId.optional().meta({
      description:
        "Another key of the same owner (e.g. your publishable key, which cannot call this endpoint itself): its counted requests instead of the calling key's.",
    }),
  })
  .meta({ id: 'UsageQuery' });
export type UsageQuery = z.output<typeof UsageQuery>;

export const UsageDay = z
  .object({
    date: z.iso.date().meta({ description: 'Quota day (YYYY-MM-DD in the quota time zone).' }),
    requests: NonNegativeInteger.meta({
      description: 'Counted requests that day: what the quota was charged and what is billed (an export counts one per 1,000 records).',
    }),
  })
  .meta({ id: 'UsageDay' });

/** GET /v1/usage: the calling key's counted requests per quota day. Free: not counted against the quota. */
export const UsageResponse = z
  .object({
    key_id: KeyId.meta({
      description: 'Public id of the key counted (the calling key, or `key_id`), as on invoices; never the key itself.',
    }),
    owner: z.string().meta({ description: "Name of the key's owner." }),
    time_zone: z.string().meta({ description: 'IANA time zone whose midnight starts a quota day.', examples: ['UTC'] }),
    from: z.iso.date(),
    to: z.iso.date(),
    total: NonNegativeInteger.meta({ description: 'Sum of `requests` over the days listed.' }),
    days: z.array(UsageDay).meta({ description: 'Every day from `from` to `to`, oldest first; days without traffic are 0.' }),
  })
  .meta({ id: 'UsageResponse' });
export type UsageResponse = z.infer<typeof UsageResponse>;
