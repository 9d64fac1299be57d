import { decodeJwt } from 'jose';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { describe, expect } from 'vitest';
import { authTest, type AuthApp, type Credentials } from './testing/app.ts';
import { exchange, obtainCode, registerClient, token } from './testing/flow.ts';

// Refresh-token rotation that never signs a person out by accident: a refresh that fails half
// way, a lost answer, and several processes refreshing one token at once all leave every token
// handed out usable; a token two generations old is theft and revokes the grant. Expiry (idle
// and absolute) is judged by an injected clock, moved here instead of waited for.
const REDIRECT = 'http://127.0.0.1:11991/callback';
const DAY = 86_400_000;

/** The steps the tests take, on one app, client and person. */
function refreshFlow(auth: AuthApp, clientId: string, person: Credentials) {
  const refresh = (refreshToken: string) =>
    token(auth.issuer, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  return {
    /** Signs in and consents; returns the refresh token and the grant id. */
    connect: async (): Promise<{ refresh: string; gid: string }> => {
      const tokens = await exchange(auth.issuer, clientId, REDIRECT, await obtainCode(auth.issuer, clientId, REDIRECT, person));
      expect(tokens.status).toBe(200);
      return { refresh: tokens.body.refresh_token as string, gid: decodeJwt(tokens.body.access_token as string).gid as string };
    },
    refresh,
    /** Refreshes `rt` `n` times at once; every answer must be a 200 with a new refresh token. */
    concurrently: async (rt: string, n: number): Promise<string[]> => {
      const answers = await Promise.all(Array.from({ length: n }, () => refresh(rt)));
      for (const answer of answers) expect(answer, JSON.stringify(answer.body)).toMatchObject({ status: 200 });
      return answers.map((a) => a.body.refresh_token as string);
    },
  };
}

const test = authTest
  .extend('clientId', { scope: 'file' }, ({ auth }) => registerClient(auth.issuer, [REDIRECT]))
  .extend('flow', { scope: 'file' }, ({ auth, clientId, person }) => refreshFlow(auth, clientId, person))
  /**
   * The fault, at the adapter edge: the next refresh token saved (the successor of a rotation)
   * fails once, either before its write reaches Redis or after Redis ran it (a reply that timed
   * out). Returns the ids the failing saves were given, i.e. the successors the client never
   * saw. The adapter is restored after the test.
   */
  .extend('failNextSuccessorSave', ({ auth }, { onCleanup }) => {
    const adapter: Adapter = auth.provider.RefreshToken.adapter;
    onCleanup(() => {
      // The instance's own property shadowed the class method; removing it restores the original.
      delete (adapter as Partial<Adapter>).upsert;
    });
    return (when: 'before-write' | 'after-write'): string[] => {
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
      return lost;
    };
  });

describe('a refresh that fails after the old token was consumed', () => {
  test.for(['before-write', 'after-write'] as const)(
    'successor save fails %s: the retry with the same token gets tokens, the grant lives on',
    async (when, { auth, flow, failNextSuccessorSave }) => {
      const { refresh: rt, gid } = await flow.connect();
      failNextSuccessorSave(when);
      const failed = await flow.refresh(rt);
      expect(failed.status).toBe(500);

      const retry = await flow.refresh(rt);
      expect(retry.status).toBe(200);
      expect(retry.body.refresh_token).toBeTypeOf('string');
      expect(retry.body.refresh_token).not.toBe(rt);
      expect(decodeJwt(retry.body.access_token as string).gid).toBe(gid);
      expect(await auth.revocations.isRevoked({ gid })).toBe(false);
      // The token the retry handed out rotates normally.
      const next = await flow.refresh(retry.body.refresh_token as string);
      expect(next.status).toBe(200);
      expect(await auth.revocations.isRevoked({ gid })).toBe(false);
    },
  );

  test('the successor the client never saw stays valid beside the one the retry handed out', async ({
    auth,
    flow,
    failNextSuccessorSave,
  }) => {
    const { refresh: rt, gid } = await flow.connect();
    const lost = failNextSuccessorSave('after-write');
    expect((await flow.refresh(rt)).status).toBe(500);
    const retry = await flow.refresh(rt);
    expect(retry.status).toBe(200);
    expect(lost).toHaveLength(1);

    expect((await flow.refresh(lost[0]!)).status).toBe(200);
    expect((await flow.refresh(retry.body.refresh_token as string)).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });
});

describe('concurrent refreshes of one token', () => {
  test.for([2, 5])('%i at once, five rounds: every answer refreshes, the person is never signed out', async (n, { auth, flow }) => {
    const { refresh: first, gid } = await flow.connect();
    let current = first;
    for (let round = 0; round < 5; round++) {
      const answers = await flow.concurrently(current, n);
      expect(new Set(answers).size).toBe(n);
      // Every process keeps its own answer and goes on refreshing with it; the next round races
      // the token one of them got.
      const next = await Promise.all(answers.map((rt) => flow.refresh(rt)));
      for (const answer of next) expect(answer.status).toBe(200);
      current = next[round % n]!.body.refresh_token as string;
    }
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });

  test('a process that kept the earlier of two answers refreshes after the later one was used', async ({ auth, flow }) => {
    const { refresh: rt, gid } = await flow.connect();
    const [earlier, later] = await flow.concurrently(rt, 2);
    expect((await flow.refresh(later!)).status).toBe(200);
    expect((await flow.refresh(earlier!)).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });

  test('a lost answer: the client keeps the first pair and still refreshes with it', async ({ auth, flow }) => {
    const { refresh: rt, gid } = await flow.connect();
    const lost = await flow.refresh(rt);
    expect(lost.status).toBe(200);
    const kept = await flow.refresh(rt);
    expect(kept.status).toBe(200);
    expect((await flow.refresh(kept.body.refresh_token as string)).status).toBe(200);
    expect(await auth.revocations.isRevoked({ gid })).toBe(false);
  });
});

describe('a token two generations old', () => {
  test('presented after its successor was used → invalid_grant and the grant is revoked', async ({ auth, flow }) => {
    const { refresh: rt, gid } = await flow.connect();
    const second = await flow.refresh(rt);
    expect(second.status).toBe(200);
    const third = await flow.refresh(second.body.refresh_token as string);
    expect(third.status).toBe(200);

    const reuse = await flow.refresh(rt);
    expect(reuse).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    expect((await flow.refresh(third.body.refresh_token as string)).body.error).toBe('invalid_grant');
  });

  test('after concurrent answers: the raced token is theft once any of its answers was used', async ({ auth, flow }) => {
    const { refresh: rt, gid } = await flow.connect();
    const [one, two] = await flow.concurrently(rt, 2);
    expect((await flow.refresh(one!)).status).toBe(200);
    expect(await flow.refresh(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await auth.revocations.isRevoked({ gid })).toBe(true);
    expect((await flow.refresh(two!)).body.error).toBe('invalid_grant');
  });
});

describe('refresh token expiry, on a clock the test moves', () => {
  const IDLE_DAYS = 30;
  const MAX_DAYS = 365;

  /** An app of its own whose clock the test moves (`timed.clock.now`), with a client and the person. */
  const timedTest = test.extend('timed', async ({ startAuth, person }) => {
    const clock = { now: Date.now() };
    const app = await startAuth({
      clock: () => clock.now,
      ttl: {
        accessToken: 86_400,
        authorizationCode: 60,
        session: 86_400,
        refreshTokenIdle: IDLE_DAYS * 86_400,
        refreshTokenMax: MAX_DAYS * 86_400,
      },
    });
    await app.users.create(person.email, person.password);
    const clientId = await registerClient(app.issuer, [REDIRECT]);
    return {
      clock,
      use: (rt: string) => token(app.issuer, { grant_type: 'refresh_token', refresh_token: rt, client_id: clientId }),
      start: async () => {
        const tokens = await exchange(app.issuer, clientId, REDIRECT, await obtainCode(app.issuer, clientId, REDIRECT, person));
        return tokens.body.refresh_token as string;
      },
    };
  });

  timedTest('idle: a token unused for 30 days ends; each use starts the 30 days again', async ({ timed }) => {
    let rt = await timed.start();
    for (let i = 0; i < 3; i++) {
      timed.clock.now += (IDLE_DAYS - 1) * DAY;
      const used = await timed.use(rt);
      expect(used.status).toBe(200);
      rt = used.body.refresh_token as string;
    }
    timed.clock.now += IDLE_DAYS * DAY;
    expect(await timed.use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  timedTest('idle: a token kept after a lost answer ends 30 days after it was issued, too', async ({ timed }) => {
    const rt = await timed.start();
    timed.clock.now += DAY;
    expect((await timed.use(rt)).status).toBe(200);
    timed.clock.now += (IDLE_DAYS - 1) * DAY;
    expect(await timed.use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  timedTest('absolute: however often it is used, the chain ends 365 days after consent', async ({ timed }) => {
    let rt = await timed.start();
    let elapsed = 0;
    while (elapsed + 20 < MAX_DAYS) {
      timed.clock.now += 20 * DAY;
      elapsed += 20;
      const used = await timed.use(rt);
      expect(used.status, `day ${elapsed}`).toBe(200);
      rt = used.body.refresh_token as string;
    }
    timed.clock.now += (MAX_DAYS - elapsed) * DAY;
    expect(await timed.use(rt)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
