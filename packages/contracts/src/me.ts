import { z } from 'zod';
import { NonNegativeInteger } from './numbers.ts';

/** GET /v1/me: the calling key's status (seed §2.2). Does not count against the quota. */
export const MeResponse = z
  .object({
    owner: z.string().meta({ description: "Name of the key's owner." }),
    rate_limit_per_day: NonNegativeInteger.meta({ description: 'Daily request quota of this key.' }),
    used_today: NonNegativeInteger.meta({ description: 'Requests counted against the quota since the last reset.' }),
    quota_resets_at: z.iso.datetime().meta({ description: 'When the daily quota next resets (ISO 8601, UTC).' }),
  })
  .meta({ id: 'MeResponse' });
export type MeResponse = z.infer<typeof MeResponse>;
