import { decodeJwt } from 'jose';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { exchange, obtainCode, registerClient, token } from './testing/flow.ts';
import { startAuth, type Harness } from './testing/harness.ts';

// Refresh-token rotation that never signs a person out by accident: a refresh that fails half
// way, a lost answer, and several processes refreshing one token at once all leave every token
// handed out usable; a token two generations old is theft and revokes the grant. Expiry (idle
// and absolute) is judged by an injected clock, moved here instead of waited for.
const REDIRECT = 'http://127.0.0.1:11991/callback';
const person = { email: 'rotation@example.com', password: 'a long rotation password' };
const DAY = 86_400_000;

let t: TestRedis;
let auth: Harness;
let clientId: string;
let restoreAdapter: (() => void) | undefined;

beforeAll(async () => {
  t = await testRedis('auth-rotation');
  auth = await startAuth(t.redis, t.prefix);
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

  it('the successor the client never saw stays valid beside the one the retry handed out', async () => {
    const { refresh: rt, gid } = await connect();
    const lost = failNextSuccessorSave('after-write');
    expect((await refresh(rt)).status).toBe(500);
    const retry = await refresh(rt);
    expect(retry.status).toBe(200);
    expect(lost).toHaveLength(1);

    expect((await refresh(lost[0]!)).status).toBe(200);
    expect((await refresh(retry.body.refresh_token as string)).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });
});

/** Refreshes `rt` `n` times at once; every answer must be a 200 with a new refresh token. */
async function concurrently(rt: string, n: number): Promise<string[]> {
  const answers = await Promise.all(Array.from({ length: n }, () => refresh(rt)));
  for (const answer of answers) expect(answer, JSON.stringify(answer.body)).toMatchObject({ status: 200 });
  return answers.map((a) => a.body.refresh_token as string);
}

describe('concurrent refreshes of one token', () => {
  it.each([2, 5])('%i at once, five rounds: every answer refreshes, the person is never signed out', async (n) => {
    const { refresh: first, gid } = await connect();
    let current = first;
    for (let round = 0; round < 5; round++) {
      const answers = await concurrently(current, n);
      expect(new Set(answers).size).toBe(n);
      // Every process keeps its own answer and goes on refreshing with it; the next round races
      // the token one of them got.
      const next = await Promise.all(answers.map((rt) => refresh(rt)));
      for (const answer of next) expect(answer.status).toBe(200);
      current = next[round % n]!.body.refresh_token as string;
    }
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });

  it('a process that kept the earlier of two answers refreshes after the later one was used', async () => {
    const { refresh: rt, gid } = await connect();
    const [earlier, later] = await concurrently(rt, 2);
    expect((await refresh(later!)).status).toBe(200);
    expect((await refresh(earlier!)).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });

  it('a lost answer: the client keeps the first pair and still refreshes with it', async () => {
    const { refresh: rt, gid } = await connect();
    const lost = await refresh(rt);
    expect(lost.status).toBe(200);
    const kept = await refresh(rt);
    expect(kept.status).toBe(200);
    expect((await refresh(kept.body.refresh_token as string)).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });
});

describe('a token two generations old', () => {
  it('presented after its successor was used → invalid_grant and the grant is revoked', async () => {
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

  it('after concurrent answers: the raced token is theft once any of its answers was used', async () => {
    const { refresh: rt, gid } = await connect();
    const [one, two] = await concurrently(rt, 2);
    expect((await refresh(one!)).status).toBe(200);
    expect(await refresh(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    expect((await refresh(two!)).body.error).toBe('invalid_grant');
  });
});

describe('refresh token expiry, on a clock the test moves', () => {
  let now = Date.now();
  let timed: Harness;
  let timedClient: string;
  const IDLE_DAYS = 30;
  const MAX_DAYS = 365;

  beforeAll(async () => {
    timed = await startAuth(t.redis, `${t.prefix}timed:`, {
      clock: () => now,
      ttl: {
        accessToken: 86_400,
        authorizationCode: 60,
        session: 86_400,
        refreshTokenIdle: IDLE_DAYS * 86_400,
        refreshTokenMax: MAX_DAYS * 86_400,
      },
    });
    await timed.users.create(person.email, person.password);
    timedClient = await registerClient(timed.issuer, [REDIRECT]);
  });
  afterAll(() => timed?.close());

  const use = (rt: string) => token(timed.issuer, { grant_type: 'refresh_token', refresh_token: rt, client_id: timedClient });
  const start = async () => {
    const tokens = await exchange(timed.issuer, timedClient, REDIRECT, await obtainCode(timed.issuer, timedClient, REDIRECT, person));
    return tokens.body.refresh_token as string;
  };

  it('idle: a token unused for 30 days ends; each use starts the 30 days again', async () => {
    let rt = await start();
    for (let i = 0; i < 3; i++) {
      now += (IDLE_DAYS - 1) * DAY;
      const used = await use(rt);
      expect(used.status).toBe(200);
      rt = used.body.refresh_token as string;
    }
    now += IDLE_DAYS * DAY;
    expect(await use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('idle: a token kept after a lost answer ends 30 days after it was issued, too', async () => {
    const rt = await start();
    now += DAY;
    expect((await use(rt)).status).toBe(200);
    now += (IDLE_DAYS - 1) * DAY;
    expect(await use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('absolute: however often it is used, the chain ends 365 days after consent', async () => {
    let rt = await start();
    let elapsed = 0;
    while (elapsed + 20 < MAX_DAYS) {
      now += 20 * DAY;
      elapsed += 20;
      const used = await use(rt);
      expect(used.status, `day ${elapsed}`).toBe(200);
      rt = used.body.refresh_token as string;
    }
    now += (MAX_DAYS - elapsed) * DAY;
    expect(await use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
