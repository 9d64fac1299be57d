import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  isKeyId,
  isWellFormedApiKey,
  keyHint,
  keyIdOfHash,
  keyKindOf,
  redactApiKeys,
} from './key-format.ts';

describe('API key format', () => {
  it('generates prefixed keys of at least 256 bits that pass the shape check', () => {
    const keys = Array.from({ length: 500 }, generateApiKey);
    for (const key of keys) {
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(isWellFormedApiKey(key)).toBe(true);
      const randomPart = key.slice(API_KEY_PREFIX.length);
      expect(randomPart.length * Math.log2(62)).toBeGreaterThanOrEqual(256);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('uses the whole base62 alphabet about evenly', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i += 1) {
      for (const ch of generateApiKey().slice(API_KEY_PREFIX.length)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2_000 * 43) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
  });

  it('rejects anything that is not prefix + 43 base62 characters', () => {
    const good = generateApiKey();
    for (const bad of [
      '',
      'fcs_',
      good.slice(0, -1),
      `${good}a`,
      good.replace('fcs_', 'fcx_'),
      `${good.slice(0, -1)}-`,
      ` ${good}`,
      `${good}\n`,
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (candidate) => {
        expect(isWellFormedApiKey(candidate)).toBe(/^fcs_[0-9A-Za-z]{43}$/.test(candidate));
      }),
    );
  });

  it('stores a SHA-256 and derives the public id from it', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hash);
    expect(hashApiKey(generateApiKey())).not.toBe(hash);
    const id = keyIdOfHash(hash);
    expect(isKeyId(id)).toBe(true);
    expect(id).not.toContain(key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + 8));
    expect(isKeyId('key_XYZ')).toBe(false);
  });

  it('makes publishable keys with their own prefix, told apart from secret ones by shape alone', () => {
    const publishable = generateApiKey('publishable');
    expect(publishable).toMatch(/^fcs_pk_[0-9A-Za-z]{43}$/);
    expect(keyKindOf(publishable)).toBe('publishable');
    expect(keyKindOf(generateApiKey())).toBe('secret');
    expect(isWellFormedApiKey(publishable)).toBe(true);
    for (const bad of [
      publishable.slice(0, -1),
      `${publishable}x`,
      publishable.replace('fcs_pk_', 'fcs_sk_'),
      `fcs_pk_${'a'.repeat(42)}_`,
    ]) {
      expect(keyKindOf(bad)).toBeUndefined();
    }
    expect(keyHint(publishable)).toBe(`${publishable.slice(0, 11)}…`);
    expect(keyHint('fcs_' + 'A'.repeat(43))).toBe('fcs_AAAA…');
  });

  it('redacts publishable keys as well, with their prefix', () => {
    const key = generateApiKey('publishable');
    const text = `/v1/${key}?k=${key.replace('_', '%5F').replace('pk_', 'pk%5f')}&s=${generateApiKey()}`;
    expect(redactApiKeys(text)).toBe('/v1/fcs_pk_[redacted]?k=fcs_pk_[redacted]&s=fcs_[redacted]');
  });

  it('redacts key-shaped tokens anywhere in a text', () => {
    const key = generateApiKey();
    const encoded = key.replace('_', '%5F');
    const text = `/v1/${key}?api_key=${encoded}&q=${key}x`;
    const redacted = redactApiKeys(text);
    expect(redacted).toBe('/v1/fcs_[redacted]?api_key=fcs_[redacted]&q=fcs_[redacted]x');
    expect(redactApiKeys('/v1/fragrances?query=fcs_short')).toBe('/v1/fragrances?query=fcs_short');
  });
});
