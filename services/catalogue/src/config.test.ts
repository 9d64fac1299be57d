import { describe, expect, it } from 'vitest';
import { ConfigError } from '@fragrance/config';
import { loadConfig } from './config.ts';

describe('catalogue config', () => {
  const secret = 'k'.repeat(32);

  it('requires CURSOR_SECRET of at least 32 characters, and never echoes it', () => {
    expect(() => loadConfig({})).toThrow(/CURSOR_SECRET: is required/);
    expect(() => loadConfig({ CURSOR_SECRET: '' })).toThrow(/CURSOR_SECRET: is required/);
    let error: unknown;
    try {
      loadConfig({ CURSOR_SECRET: 'short-secret-value' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(['CURSOR_SECRET']);
    expect((error as ConfigError).message).not.toContain('short-secret-value');
    expect(() => loadConfig({ CURSOR_SECRET: secret, CURSOR_SECRET_PREVIOUS: 'too-short' })).toThrow(/CURSOR_SECRET_PREVIOUS/);
  });

  it('accepts a current key alone or with the previous one', () => {
    const alone = loadConfig({ CURSOR_SECRET: secret });
    expect(alone.CURSOR_SECRET).toBe(secret);
    expect(alone.CURSOR_SECRET_PREVIOUS).toBeUndefined();
    const previous = 'p'.repeat(40);
    expect(loadConfig({ CURSOR_SECRET: secret, CURSOR_SECRET_PREVIOUS: previous }).CURSOR_SECRET_PREVIOUS).toBe(previous);
  });
});
