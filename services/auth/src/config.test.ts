import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('auth config: refresh-token lifetimes', () => {
  it('defaults to 30 days idle and 365 days at most', () => {
    const config = loadConfig({});
    expect(config.REFRESH_TOKEN_IDLE_SECONDS).toBe(30 * 86_400);
    expect(config.REFRESH_TOKEN_MAX_AGE_SECONDS).toBe(365 * 86_400);
  });

  it('takes both from the environment', () => {
    const config = loadConfig({ REFRESH_TOKEN_IDLE_SECONDS: '86400', REFRESH_TOKEN_MAX_AGE_SECONDS: '604800' });
    expect([config.REFRESH_TOKEN_IDLE_SECONDS, config.REFRESH_TOKEN_MAX_AGE_SECONDS]).toEqual([86_400, 604_800]);
  });

  it('refuses an idle expiry longer than the maximum, naming the variable', () => {
    expect(() => loadConfig({ REFRESH_TOKEN_IDLE_SECONDS: '700000', REFRESH_TOKEN_MAX_AGE_SECONDS: '600000' })).toThrow(
      /REFRESH_TOKEN_IDLE_SECONDS: must not exceed REFRESH_TOKEN_MAX_AGE_SECONDS/,
    );
    expect(() => loadConfig({ REFRESH_TOKEN_MAX_AGE_SECONDS: 'a year' })).toThrow(/REFRESH_TOKEN_MAX_AGE_SECONDS/);
  });
});
