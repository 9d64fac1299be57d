import { decodeJwt } from 'jose';
import { describe, expect } from 'vitest';
import { FormUser, parseForms, type Page } from '@fragrance/testkit';
import { signIns } from './metrics.ts';
import { authTest as test, type AuthApp, type Credentials } from './testing/app.ts';
import { authorizeUrl, exchange, obtainCode, pkcePair, registerClient, token } from './testing/flow.ts';

// The account page over plain HTTP, the way a browser posts its forms (the real-browser run is
// in the gateway's account-browser test): sign-in, CSRF, throttle, connected apps, disconnect,
// change password, sign out everywhere.
const REDIRECT = 'http://127.0.0.1:11990/callback';

test.override('authOptions', { login: { perAccount: 3, perAddress: 50, windowSeconds: 900 } });

/** Connects a new client for `who` through the sign-in and consent pages; returns its tokens. */
async function connect(auth: AuthApp, name: string, who: Credentials, browser = new FormUser(auth.issuer)) {
  const clientId = await registerClient(auth.issuer, [REDIRECT], name);
  const result = await obtainCode(auth.issuer, clientId, REDIRECT, who, {}, browser);
  const tokens = await exchange(auth.issuer, clientId, REDIRECT, result);
  expect(tokens.status).toBe(200);
  return { clientId, access: tokens.body.access_token as string, refresh: tokens.body.refresh_token as string };
}

async function signIn(browser: FormUser, who: Credentials): Promise<Page> {
  const page = await browser.request(`${browser.origin}/account`);
  const form = parseForms(page.body, page.url).find((f) => f.action.endsWith('/account/sign-in'))!;
  return browser.request(form.action, { form: { ...Object.fromEntries(form.fields), ...who } });
}

/** Submits the account page's form whose action ends with `action` (for Disconnect: the one naming `clientId`). */
async function submit(browser: FormUser, action: string, extra: Record<string, string> = {}, clientId?: string): Promise<Page> {
  const page = await browser.request(`${browser.origin}/account`);
  const form = parseForms(page.body, page.url).find(
    (f) => f.action.endsWith(action) && (!clientId || f.fields.get('client_id') === clientId),
  );
  if (!form) throw new Error(`no ${action} form on: ${page.body.slice(0, 500)}`);
  return browser.request(form.action, { form: { ...Object.fromEntries(form.fields), ...extra } });
}

const refresh = (auth: AuthApp, clientId: string, refreshToken: string) =>
  token(auth.issuer, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

describe('/account', () => {
  test('shows a sign-in form with a strict CSP, refuses a post without the CSRF token, and throttles guessing', async ({
    auth,
    person,
  }) => {
    const browser = new FormUser(auth.issuer);
    const res = await fetch(`${auth.issuer}/account`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.text()).toContain('name="viewport"');

    const forged = await browser.request(`${auth.issuer}/account/sign-in`, { form: { csrf: 'x', ...person } });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('csrf_failed');

    const guesser = { email: 'guessed.account@example.com', password: 'the guessed password' };
    await auth.users.create(guesser.email, 'the real long password');
    for (let i = 0; i < 3; i++) expect((await signIn(browser, guesser)).status).toBe(401);
    const blocked = await signIn(browser, { ...guesser, password: 'the real long password' });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toContain('Too many failed sign-ins');
  });

  test('lists the connected apps; Disconnect revokes that app at once and leaves the other working', async ({ auth, person }) => {
    const first = await connect(auth, 'First App', person);
    const second = await connect(auth, 'Second App', person);
    const browser = new FormUser(auth.issuer);
    const signedIn = await signIn(browser, person);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`${auth.issuer}/account`);
    const page = await browser.request(`${auth.issuer}/account`);
    expect(page.body).toContain('First App');
    expect(page.body).toContain('Second App');
    expect(page.body).toContain('Search and read the fragrance catalogue');

    const gone = await submit(browser, '/account/disconnect', {}, first.clientId);
    expect(gone.status).toBe(303);
    expect(gone.location).toBe(`${auth.issuer}/account?done=disconnected`);
    const after = await browser.request(gone.location!);
    expect(after.body).not.toContain('First App');
    expect(after.body).toContain('Second App');
    expect(after.body).toContain('The app was disconnected');

    // Its access token is recorded revoked (the MCP server refuses it), its refresh token is dead.
    expect(await auth.revocations.isRevoked({ gid: decodeJwt(first.access).gid as string })).toBe(true);
    expect((await refresh(auth, first.clientId, first.refresh)).body.error).toBe('invalid_grant');
    // The other app keeps working.
    expect(await auth.revocations.isRevoked({ gid: decodeJwt(second.access).gid as string })).toBe(false);
    expect((await refresh(auth, second.clientId, second.refresh)).status).toBe(200);
  });

  test('changes the password with the current one, signing out every other session (account and sign-in)', async ({ auth }) => {
    const who = { email: 'password.change@example.com', password: 'the old long password' };
    await auth.users.create(who.email, who.password);
    const oauthBrowser = new FormUser(auth.issuer);
    const app = await connect(auth, 'Kept App', who, oauthBrowser);
    const here = new FormUser(auth.issuer);
    const elsewhere = new FormUser(auth.issuer);
    await signIn(here, who);
    await signIn(elsewhere, who);

    const wrong = await submit(here, '/account/password', {
      current: 'not the password!!',
      new: 'a brand new password',
      confirm: 'a brand new password',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('The current password is not right');
    const differ = await submit(here, '/account/password', {
      current: who.password,
      new: 'a brand new password',
      confirm: 'another new password',
    });
    expect(differ.status).toBe(400);
    const short = await submit(here, '/account/password', { current: who.password, new: 'short', confirm: 'short' });
    expect(short.status).toBe(400);

    const changed = await submit(here, '/account/password', {
      current: who.password,
      new: 'a brand new password',
      confirm: 'a brand new password',
    });
    expect(changed.location).toBe(`${auth.issuer}/account?done=password`);
    expect((await here.request(changed.location!)).body).toContain('Your password was changed');
    expect(await auth.users.authenticate(who.email, who.password)).toBeUndefined();
    expect(await auth.users.authenticate(who.email, 'a brand new password')).toBeDefined();
    // The other account session is over; so is the authorization server's sign-in session.
    expect((await elsewhere.request(`${auth.issuer}/account`)).body).toContain('action="/account/sign-in"');
    const again = await oauthBrowser.request(
      authorizeUrl(auth.issuer, {
        client_id: app.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect((await oauthBrowser.request(again.location!)).body).toContain('type="password"');
    // Connected apps stay connected.
    expect((await refresh(auth, app.clientId, app.refresh)).status).toBe(200);
  });

  test('signs out everywhere: every session of the person ends', async ({ auth }) => {
    const who = { email: 'sign.out@example.com', password: 'a long enough password' };
    await auth.users.create(who.email, who.password);
    const here = new FormUser(auth.issuer);
    const elsewhere = new FormUser(auth.issuer);
    await signIn(here, who);
    await signIn(elsewhere, who);
    const out = await submit(here, '/account/sign-out-everywhere');
    expect(out.location).toBe(`${auth.issuer}/account?done=signed-out-everywhere`);
    expect((await here.request(out.location!)).body).toContain('You are signed out everywhere');
    expect((await elsewhere.request(`${auth.issuer}/account`)).body).toContain('action="/account/sign-in"');
    // A post from the ended session goes back to the sign-in form and changes nothing.
    const late = await elsewhere.request(`${auth.issuer}/account/sign-out`, { form: { csrf: 'whatever' } });
    expect(late.status).toBe(303);
    expect(late.location).toBe(`${auth.issuer}/account`);
  });

  test('keeps its session in Redis behind an httpOnly, SameSite=Lax cookie on /account, a new id at each sign-in, gone at sign-out', async ({
    auth,
    redis,
  }) => {
    const who = { email: 'session.cookie@example.com', password: 'a long session password' };
    await auth.users.create(who.email, who.password);
    const browser = new FormUser(auth.issuer);
    // A session id planted before sign-in (fixation) is not the one signed in.
    await browser.request(`${auth.issuer}/account`);
    const page = await browser.request(`${auth.issuer}/account`);
    const form = parseForms(page.body, page.url).find((f) => f.action.endsWith('/account/sign-in'))!;
    const response = await fetch(form.action, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `${browser.cookieHeader()}; fcs_account=s%3Aplanted.by-an-attacker`,
      },
      body: new URLSearchParams({ ...Object.fromEntries(form.fields), ...who }).toString(),
    });
    expect(response.status).toBe(303);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('fcs_account='))!;
    expect(cookie).toMatch(/; Path=\/account;/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toContain('planted');

    // Each sign-in gets a new session id; the previous one no longer exists in Redis.
    const sessionId = () => {
      const value = /fcs_account=([^;]+)/.exec(browser.cookieHeader())?.[1];
      return value ? decodeURIComponent(value).slice('s:'.length).split('.')[0]! : undefined;
    };
    const signInForm = parseForms(page.body, page.url).find((f) => f.action.endsWith('/account/sign-in'))!;
    const post = () => browser.request(signInForm.action, { form: { ...Object.fromEntries(signInForm.fields), ...who } });
    expect((await post()).status).toBe(303);
    const first = sessionId()!;
    expect(await redis.redis.exists(`${redis.prefix}account:session:${first}`)).toBe(1);
    expect((await post()).status).toBe(303);
    const second = sessionId()!;
    expect(second).not.toBe(first);
    expect(await redis.redis.exists(`${redis.prefix}account:session:${first}`)).toBe(0);
    expect(await redis.redis.exists(`${redis.prefix}account:session:${second}`)).toBe(1);

    // Sign-out ends the session in Redis: the cookie presented again is signed out.
    const stolen = browser.cookieHeader();
    const out = await submit(browser, '/account/sign-out');
    expect(out.location).toBe(`${auth.issuer}/account?done=signed-out`);
    expect(await redis.redis.exists(`${redis.prefix}account:session:${second}`)).toBe(0);
    const replay = await fetch(`${auth.issuer}/account`, { headers: { cookie: stolen } });
    expect(await replay.text()).toContain('action="/account/sign-in"');
  });

  test('counts its sign-ins in auth_sign_ins_total, as the consent pages do', async ({ auth }) => {
    const count = async (result: string) => (await signIns.get()).values.find((v) => v.labels.result === result)?.value ?? 0;
    const who = { email: 'counted@example.com', password: 'a long counted password' };
    await auth.users.create(who.email, who.password);
    const [success, failed] = [await count('success'), await count('failed')];
    const browser = new FormUser(auth.issuer);
    expect((await signIn(browser, { ...who, password: 'not the right one' })).status).toBe(401);
    expect((await signIn(browser, who)).status).toBe(303);
    expect(await count('failed')).toBe(failed + 1);
    expect(await count('success')).toBe(success + 1);
    // The consent pages' sign-in goes through the same flow and counter.
    await connect(auth, 'Counted App', who);
    expect(await count('success')).toBe(success + 2);
  });
});
