import { decodeJwt } from 'jose';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { exchange, obtainCode, registerClient, token } from './testing/flow.ts';
import { startAuth, type Harness } from './testing/harness.ts';

// Refresh-token rotation when a refresh fails half way (bench:chaos: a Redis reply timed out
// after the old token was consumed, the client got a 500, and its retry with the only token it
// held was taken for reuse and revoked the grant). A client that got no new token can retry;
// reuse detection still revokes when the retry cannot be one.
const REDIRECT = 'http://127.0.0.1:11991/callback';
const person = { email: 'rotation@example.com', password: 'a long rotation password' };
const GRACE_SECONDS = 30;

let t: TestRedis;
let auth: Harness;
let clientId: string;
let restoreAdapter: (() => void) | undefined;

beforeAll(async () => {
  t = await testRedis('auth-rotation');
  auth = await startAuth(t.redis, t.prefix, { refreshTokenReuseGraceSeconds: GRACE_SECONDS });
  await auth.users.create(person.email, person.password);
  clientId = await registerClient(auth.issuer, [REDIRECT]);
});
afterEach(() => {
  restoreAdapter?.();
  restoreAdapter = undefined;
});
afterAll(async () => {
  await auth?.close();
  await t?.cleanup();
});

async function connect(): Promise<{ refresh: string; gid: string }> {
  const tokens = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
  expect(tokens.status).toBe(200);
  return { refresh: tokens.body.refresh_token as string, gid: decodeJwt(tokens.body.access_token as string).gid as string };
}

const refresh = (refreshToken: string) =>
  token(auth.issuer, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

/**
 * The fault, at the adapter edge: the next refresh token saved (the successor of a rotation)
 * fails once, either before its write reaches Redis or after Redis ran it (a reply that timed
 * out). Returns the ids the failing saves were given, i.e. the successors the client never saw.
 */
function failNextSuccessorSave(when: 'before-write' | 'after-write'): string[] {
  const adapter: Adapter = auth.provider.RefreshToken.adapter;
  const upsert = adapter.upsert.bind(adapter);
  const lost: string[] = [];
  let armed = true;
  adapter.upsert = async (id: string, payload: AdapterPayload, expiresIn: number) => {
    if (!armed) return upsert(id, payload, expiresIn);
    armed = false;
    lost.push(id);
    if (when === 'after-write') await upsert(id, payload, expiresIn);
    throw new Error('Command timed out');
  };
  restoreAdapter = () => {
    // The instance's own property shadowed the class method; removing it restores the original.
    delete (adapter as Partial<Adapter>).upsert;
  };
  return lost;
}

describe('a refresh that fails after the old token was consumed', () => {
  it.each(['before-write', 'after-write'] as const)(
    'successor save fails %s: the retry with the same token gets tokens, the grant lives on',
    async (when) => {
      const { refresh: rt, gid } = await connect();
      failNextSuccessorSave(when);
      const failed = await refresh(rt);
      expect(failed.status).toBe(500);

      const retry = await refresh(rt);
      expect(retry.status).toBe(200);
      expect(retry.body.refresh_token).toBeTypeOf('string');
      expect(retry.body.refresh_token).not.toBe(rt);
      expect(decodeJwt(retry.body.access_token as string).gid).toBe(gid);
      expect(await auth.revocations.isRevoked({ gid })).toBe(false);
      // The token the retry handed out rotates normally.
      const next = await refresh(retry.body.refresh_token as string);
      expect(next.status).toBe(200);
      expect(await auth.revocations.isRevoked({ gid })).toBe(false);
    },
  );

  it('the successor the client never saw is superseded by the retry: presenting it later revokes the grant', async () => {
    const { refresh: rt, gid } = await connect();
    const lost = failNextSuccessorSave('after-write');
    expect((await refresh(rt)).status).toBe(500);
    const retry = await refresh(rt);
    expect(retry.status).toBe(200);
    expect(lost).toHaveLength(1);

    const stolen = await refresh(lost[0]!);
    expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    expect((await refresh(retry.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });
});

describe('reuse of a rotated refresh token', () => {
  it('within the grace period, while its successor is unused (the answer was lost): answered, the grant lives on', async () => {
    const { refresh: rt, gid } = await connect();
    const first = await refresh(rt);
    expect(first.status).toBe(200);
    const again = await refresh(rt);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
    expect((await refresh(again.body.refresh_token as string)).status).toBe(200);
  });

  it('after the grace period → invalid_grant and the grant is revoked', async () => {
    const { refresh: rt, gid } = await connect();
    const rotated = await refresh(rt);
    expect(rotated.status).toBe(200);
    // Consumed longer ago than the grace period: moved back in Redis rather than waited for.
    const key = `${t.prefix}oidc:RefreshToken:${rt}`;
    const consumed = Number(await t.redis.hget(key, 'consumed'));
    expect(consumed).toBeGreaterThan(0);
    await t.redis.hset(key, 'consumed', String(consumed - GRACE_SECONDS - 1));

    const reuse = await refresh(rt);
    expect(reuse).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    expect((await refresh(rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  it('within the grace period but after its successor was used → invalid_grant and the grant is revoked', async () => {
    const { refresh: rt, gid } = await connect();
    const second = await refresh(rt);
    expect(second.status).toBe(200);
    const third = await refresh(second.body.refresh_token as string);
    expect(third.status).toBe(200);

    const reuse = await refresh(rt);
    expect(reuse).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    expect((await refresh(third.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  it('with no grace period configured (0) → invalid_grant at once, as before', async () => {
    const strict = await startAuth(t.redis, `${t.prefix}strict:`, { refreshTokenReuseGraceSeconds: 0 });
    try {
      await strict.users.create(person.email, person.password);
      const id = await registerClient(strict.issuer, [REDIRECT]);
      const tokens = await exchange(strict.issuer, id, REDIRECT, await obtainCode(strict.issuer, id, REDIRECT, person));
      const rt = tokens.body.refresh_token as string;
      const gid = decodeJwt(tokens.body.access_token as string).gid as string;
      const use = (value: string) => token(strict.issuer, { grant_type: 'refresh_token', refresh_token: value, client_id: id });
      expect((await use(rt)).status).toBe(200);
      expect(await use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(await strict.revocations.isRevoked({ gid })).toBe(true);
    } finally {
      await strict.close();
    }
  });
});
