import { z } from 'zod';

/** A count (records, requests, searches) or an offset: a whole number, never negative. */
export const NonNegativeInteger = z.number().int().min(0);
