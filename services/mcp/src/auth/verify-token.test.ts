import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mintToken, signingKey, type SigningKey } from '../testing/tokens.ts';
import { createTokenVerifier, InvalidTokenError, RevokedTokenError, VERIFIED_TOKEN_TTL_MS, type TokenVerifier } from './verify-token.ts';

// The verifier remembers a verified token briefly (no second RSA check), which must never widen
// what it accepts: expiry, revocation and a withdrawn key still bite. Keys and clock are local.
const ISSUER = 'http://issuer.test';
const AUDIENCE = 'http://mcp.test/mcp';

let key: SigningKey;
beforeAll(async () => {
  key = await signingKey('k1');
});

/** A verifier over `key` with a settable clock, counting how often a signing key was looked up (one per signature check). */
function verifier(options: { revoked?: Set<string> } = {}) {
  const clock = { now: Date.now() };
  let lookups = 0;
  const local = createLocalJWKSet({ keys: [key.publicJwk] });
  const keys: JWTVerifyGetKey = (header, token) => {
    lookups++;
    return local(header, token);
  };
  const verify: TokenVerifier = createTokenVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithm: 'RS256',
    requiredScope: 'catalogue:read',
    keys,
    clockToleranceSeconds: 0,
    now: () => clock.now,
    revocations: { isRevoked: async ({ sub }) => options.revoked?.has(sub ?? '') ?? false },
  });
  return { verify, clock, lookups: () => lookups };
}

const token = (options: { expiresIn?: number; sub?: string } = {}) => mintToken(key, { issuer: ISSUER, audience: AUDIENCE, ...options });

describe('verified-token memory', () => {
  it('checks a signature once, then trusts the same token without a new check', async () => {
    const { verify, lookups } = verifier();
    const t = await token();
    await verify(t);
    await verify(t);
    await verify(t);
    expect(lookups()).toBe(1);
    // Any other bytes are a new token: a tampered copy is checked, and refused. One character
    // inside the signature is changed (writing "AA" over its end left it as it was whenever the
    // signature already ended so, one run in 256).
    const at = t.lastIndexOf('.') + 10;
    const tampered = `${t.slice(0, at)}${t[at] === 'A' ? 'B' : 'A'}${t.slice(at + 1)}`;
    expect(tampered).not.toBe(t);
    await expect(verify(tampered)).rejects.toBeInstanceOf(InvalidTokenError);
    expect(lookups()).toBe(2);
  });

  it('refuses a remembered token once it expires', async () => {
    const { verify, clock } = verifier();
    const t = await token({ expiresIn: 30 });
    await verify(t);
    clock.now += 29_000;
    await expect(verify(t)).resolves.toBeDefined();
    clock.now += 2_000;
    await expect(verify(t)).rejects.toThrow(/exp/);
  });

  it('checks the signature again after the memory lapses', async () => {
    const { verify, clock, lookups } = verifier();
    const t = await token({ expiresIn: 3600 });
    await verify(t);
    clock.now += VERIFIED_TOKEN_TTL_MS - 1;
    await verify(t);
    expect(lookups()).toBe(1);
    clock.now += 2;
    await verify(t);
    expect(lookups()).toBe(2);
  });

  it('still reads the revocation record on every request', async () => {
    const revoked = new Set<string>();
    const { verify } = verifier({ revoked });
    const t = await token({ sub: 'leaver' });
    await verify(t);
    revoked.add('leaver');
    await expect(verify(t)).rejects.toBeInstanceOf(RevokedTokenError);
  });
});
