import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { KeyStore } from './signing-keys.ts';

let t: TestRedis;
beforeAll(async () => {
  t = await testRedis('keys');
});
afterAll(() => t.cleanup());

describe('KeyStore', () => {
  it('generates an RS256 key on first use and returns the same one afterwards', async () => {
    const store = new KeyStore(t.redis, { prefix: `${t.prefix}a:` });
    const [first, again] = await Promise.all([store.signingKeys(), new KeyStore(t.redis, { prefix: `${t.prefix}a:` }).signingKeys()]);
    expect(first).toHaveLength(1);
    expect(again).toEqual(first);
    const key = first[0]!;
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(key.d).toBeTypeOf('string');
    // The stored JWK is a usable key pair.
    const signature = sign('sha256', Buffer.from('x'), createPrivateKey({ key: key, format: 'jwk' }));
    expect(verify('sha256', Buffer.from('x'), createPublicKey({ key: key, format: 'jwk' }), signature)).toBe(true);
    expect(await store.signingKeys()).toEqual(first);
  });

  it('rotates: the new key comes first, previous keys stay until `keep` is exceeded', async () => {
    const store = new KeyStore(t.redis, { prefix: `${t.prefix}b:` });
    const [original] = await store.signingKeys();
    const r1 = await store.rotateSigningKeys(2);
    expect(r1.kept).toEqual([r1.kid, original!.kid]);
    expect(r1.retired).toEqual([]);
    const r2 = await store.rotateSigningKeys(2);
    expect(r2.kept).toEqual([r2.kid, r1.kid]);
    expect(r2.retired).toEqual([original!.kid]);
    expect((await store.signingKeys()).map((k) => k.kid)).toEqual([r2.kid, r1.kid]);
    await expect(store.rotateSigningKeys(1)).rejects.toThrow(RangeError);
  });

  it('keeps cookie secrets the same way', async () => {
    const store = new KeyStore(t.redis, { prefix: `${t.prefix}c:` });
    const first = await store.cookieKeys();
    expect(first[0]).toMatch(/^[\w-]{43}$/);
    expect(await store.cookieKeys()).toEqual(first);
    await store.rotateCookieKeys();
    const rotated = await store.cookieKeys();
    expect(rotated).toHaveLength(2);
    expect(rotated[1]).toBe(first[0]);
  });
});
