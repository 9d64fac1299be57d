import { decodeJwt } from 'jose';
import { describe, expect } from 'vitest';
import { FormUser, parseForms, type Page } from '@fragrance/testkit';
import { authTest, type Credentials } from './testing/app.ts';
import { authorizeUrl, followOnOrigin, pkcePair, registerClient, token } from './testing/flow.ts';
import { SCOPE_DESCRIPTIONS } from './views/pages.ts';

// Consent tells the truth: every scope that releases something has a line on the consent page,
// the token response's `scope` names every granted scope, and /account shows the same list.
const REDIRECT = 'http://127.0.0.1:43110/cb';

/** The scopes the server's metadata advertises. */
const test = authTest.extend('supported', { scope: 'file' }, async ({ auth }) => {
  const metadata = (await (await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] };
  return metadata.scopes_supported;
});

/** Signs in and stops on the consent page; returns it with the verifier of the request. */
async function consentPageFor(
  clientId: string,
  user: FormUser,
  who: Credentials,
  scope?: string,
): Promise<{ page: Page; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  let page = await user.request(
    authorizeUrl(user.origin, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope,
    }),
  );
  for (let step = 0; step < 8; step++) {
    if (page.location) {
      page = await user.request(page.location);
      continue;
    }
    const login = parseForms(page.body, page.url).find((f) => f.action.endsWith('/login'));
    if (!login) break;
    page = await user.request(login.action, { form: { ...Object.fromEntries(login.fields), ...who } });
  }
  if (!page.body.includes('/confirm')) throw new Error(`no consent page: ${page.status} ${page.body.slice(0, 300)}`);
  return { page, verifier };
}

/** Presses Allow and exchanges the code. */
async function allow(clientId: string, user: FormUser, consent: { page: Page; verifier: string }) {
  const confirm = parseForms(consent.page.body, consent.page.url).find((f) => f.action.endsWith('/confirm'))!;
  const page = await followOnOrigin(user, await user.request(confirm.action, { form: Object.fromEntries(confirm.fields) }));
  const code = new URL(page.location!).searchParams.get('code')!;
  return token(user.origin, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: consent.verifier,
  });
}

/** The scope names listed on a page (each shown as `<code>name</code>` after its description). */
const listed = (html: string) => [...html.matchAll(/<li>(?:<strong>)?([^<]+)(?:<\/strong>)? <code>([^<]+)<\/code><\/li>/g)];

describe('consent tells the truth', () => {
  test('every scope in scopes_supported has a plain-language description', ({ supported }) => {
    expect(supported).toEqual(expect.arrayContaining(['openid', 'email', 'offline_access', 'catalogue:read']));
    for (const scope of supported) {
      expect(SCOPE_DESCRIPTIONS[scope], `scope ${scope} has no consent line`).toMatch(/\w{3,}/);
    }
  });

  test('a consent page lists every requested scope that releases data, email included', async ({ auth, person, supported }) => {
    const clientId = await registerClient(auth.issuer, [REDIRECT], 'Scope Asker');
    const user = new FormUser(auth.issuer);
    // What the MCP SDK sends: no prompt=consent, so oidc-provider drops offline_access from the
    // request, yet the client receives a refresh token; the page says so.
    const asked = 'openid email catalogue:read offline_access';
    const consent = await consentPageFor(clientId, user, person, asked);
    const lines = listed(consent.page.body);
    for (const scope of supported) {
      const line = lines.find((m) => m[2] === scope);
      expect(line, `consent page lacks ${scope}`).toBeDefined();
      expect(line![1]).toBe(SCOPE_DESCRIPTIONS[scope]);
    }
    expect(consent.page.body).toContain('See your email address');

    const tokens = await allow(clientId, user, consent);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('openid email offline_access catalogue:read');
    expect(tokens.body.refresh_token).toBeTypeOf('string');
    expect(decodeJwt(tokens.body.id_token as string).email).toBe(person.email);
    // The access token still carries only the resource scope (what the MCP server checks).
    expect(decodeJwt(tokens.body.access_token as string).scope).toBe('catalogue:read');

    const refreshed = await token(auth.issuer, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid email offline_access catalogue:read');

    // /account shows the same list for this app.
    const browser = new FormUser(auth.issuer);
    const signInPage = await browser.request(`${auth.issuer}/account`);
    const form = parseForms(signInPage.body, signInPage.url).find((f) => f.action.endsWith('/account/sign-in'))!;
    await browser.request(form.action, { form: { ...Object.fromEntries(form.fields), ...person } });
    const account = await browser.request(`${auth.issuer}/account`);
    const app = account.body.split('<li class="app">').find((item) => item.includes(clientId))!;
    expect(listed(app).map((m) => m[2])).toEqual(['catalogue:read', 'email', 'offline_access', 'openid']);
    for (const m of listed(app)) expect(m[1]).toBe(SCOPE_DESCRIPTIONS[m[2]!]);
  });

  test('a client that asks for nothing is shown, and told, the catalogue and offline access', async ({ auth, person }) => {
    const clientId = await registerClient(auth.issuer, [REDIRECT], 'Quiet Client');
    const user = new FormUser(auth.issuer);
    const consent = await consentPageFor(clientId, user, person);
    expect(listed(consent.page.body).map((m) => m[2])).toEqual(['offline_access', 'catalogue:read']);
    const tokens = await allow(clientId, user, consent);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('offline_access catalogue:read');
    expect(tokens.body).not.toHaveProperty('id_token');
  });
});
