import { z } from 'zod';

/** Reusable pieces of service config schemas, so every service spells a port or URL the same way. */
export const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

export const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, ''));

export const redisUrl = () => z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' });

export const host = (fallback = '127.0.0.1') => z.string().min(1).default(fallback);

export const logLevel = () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** Positive integer milliseconds (timeouts, intervals). */
export const millis = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');
