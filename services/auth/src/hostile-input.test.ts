import { describe, expect } from 'vitest';
import { FormUser, parseForms } from '@fragrance/testkit';
import { authTest, type AuthApp, type Credentials } from './testing/app.ts';
import { authorizeUrl, followOnOrigin, pkcePair, registerClient } from './testing/flow.ts';
import { rawRequest, type RawResponse } from './testing/raw-http.ts';

// Hostile cookies and headers on the sign-in and consent pages, always against a live
// interaction, so a refusal proves the input was judged rather than the interaction missing.
const REDIRECT = 'http://127.0.0.1:43000/cb';
const FORM = 'application/x-www-form-urlencoded';

interface LiveForm {
  user: FormUser;
  /** The interaction page (GET). */
  page: string;
  /** The form's action (POST). */
  action: string;
  csrf: string;
}

/** A new browser at the sign-in page of a fresh interaction. */
async function atLogin(auth: AuthApp, clientId: string): Promise<LiveForm> {
  const user = new FormUser(auth.issuer);
  const { challenge } = pkcePair();
  const start = await user.request(
    authorizeUrl(auth.issuer, {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  const page = await user.request(start.location!);
  const login = parseForms(page.body, page.url).find((f) => f.action.endsWith('/login'))!;
  return { user, page: page.url, action: login.action, csrf: login.fields.get('csrf')! };
}

/** A new browser, signed in as `who`, at the consent page of a fresh interaction. */
async function atConsent(auth: AuthApp, clientId: string, who: Credentials): Promise<LiveForm> {
  const login = await atLogin(auth, clientId);
  const { user } = login;
  const page = await followOnOrigin(user, await user.request(login.action, { form: { csrf: login.csrf, ...who } }));
  const confirm = parseForms(page.body, page.url).find((f) => f.action.endsWith('/confirm'));
  if (!confirm) throw new Error(`no consent form: ${page.status} ${page.body.slice(0, 200)}`);
  return { user, page: page.url, action: confirm.action, csrf: confirm.fields.get('csrf')! };
}

/** `live.atLogin()`, `live.atConsent()`: a new browser in a fresh interaction of the file's client, as the file's person. */
const test = authTest
  .extend('clientId', { scope: 'file' }, ({ auth }) => registerClient(auth.issuer, [REDIRECT]))
  .extend('live', { scope: 'file' }, ({ auth, clientId, person }) => ({
    atLogin: () => atLogin(auth, clientId),
    atConsent: () => atConsent(auth, clientId, person),
  }));

/** The browser's cookies with fcs_csrf replaced by `hostile` (placed first, as a browser puts the most specific). */
const cookiesWith = (user: FormUser, hostile: string) =>
  [
    hostile,
    ...user
      .cookieHeader()
      .split('; ')
      .filter((c) => !c.startsWith('fcs_csrf=')),
  ].join('; ');

const csrfCookieOf = (user: FormUser) => /(?:^|; )fcs_csrf=([^;]*)/.exec(user.cookieHeader())?.[1];

const freshCsrfCookie = (response: RawResponse) =>
  (response.headers.get('set-cookie') ?? []).map((c) => /^fcs_csrf=([^;]*)/.exec(c)?.[1]).find(Boolean);

const refusedAsCsrf = (response: RawResponse) => {
  expect(response.status, response.body.slice(0, 300)).toBe(403);
  expect(response.body).toContain('csrf_failed');
};

describe('hostile fcs_csrf cookies are a failed CSRF check, never a 5xx', () => {
  // Cookie header fragments standing in for the browser's fcs_csrf cookie (latin1: one char = one byte).
  const hostile: [string, string][] = [
    ['a lone percent sign', 'fcs_csrf=%'],
    ['a truncated UTF-8 escape', 'fcs_csrf=%E0%A4%A'],
    ['an escape of an invalid UTF-8 byte', 'fcs_csrf=%FF%FE'],
    ['escaped NUL bytes', 'fcs_csrf=%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00'],
    ['bytes above 0x7f', 'fcs_csrf=\xff\xfe\x80\xc3\x28'],
    ['a tab inside the value', 'fcs_csrf=abc\tdefghijklmnopqrstuvwxyz'],
    ['an empty value', 'fcs_csrf='],
    ['a name without a value', 'fcs_csrf'],
    ['only "="', '='],
    ['only separators and "="', '=; ==; ;; ='],
    ['a lone double quote', 'fcs_csrf="'],
    ['a quoted well-formed-looking value', 'fcs_csrf="abcdefghijklmnopqrstuvwxyz"'],
    ['prototype-polluting names', '__proto__=x; constructor=y; fcs_csrf=%'],
    ['a value of 8000 characters', `fcs_csrf=${'A'.repeat(8000)}`],
    ['a malformed duplicate before the real one', 'fcs_csrf=%; fcs_csrf=placeholder'],
  ];

  test.for(hostile)('%s: the interaction page answers 200 and issues a fresh cookie', async ([, fragment], { live }) => {
    const { user, page } = await live.atLogin();
    const response = await rawRequest(page, { headers: [['Cookie', cookiesWith(user, fragment)]] });
    expect(response.status, response.body.slice(0, 300)).toBe(200);
    expect(response.body).toContain('name="csrf"');
    expect(freshCsrfCookie(response)).toMatch(/^[\w-]{32}$/);
  });

  test.for(hostile)('%s: the sign-in post answers 403 csrf_failed', async ([, fragment], { live, person }) => {
    const { user, action, csrf } = await live.atLogin();
    const real = csrfCookieOf(user)!;
    const response = await rawRequest(action, {
      method: 'POST',
      headers: [
        ['Cookie', cookiesWith(user, fragment.replace('placeholder', real))],
        ['Content-Type', FORM],
      ],
      body: new URLSearchParams({ csrf, ...person }).toString(),
    });
    refusedAsCsrf(response);
  });

  test.for(hostile)('%s: the consent post answers 403 csrf_failed', async ([, fragment], { live }) => {
    const { user, action, csrf } = await live.atConsent();
    const real = csrfCookieOf(user)!;
    const response = await rawRequest(action, {
      method: 'POST',
      headers: [
        ['Cookie', cookiesWith(user, fragment.replace('placeholder', real))],
        ['Content-Type', FORM],
      ],
      body: new URLSearchParams({ csrf }).toString(),
    });
    refusedAsCsrf(response);
  });

  test('of duplicate fcs_csrf cookies the first counts (RFC 6265 §5.4 sends the most specific first)', async ({ live, person }) => {
    const { user, action, csrf } = await live.atLogin();
    const real = csrfCookieOf(user)!;
    const response = await rawRequest(action, {
      method: 'POST',
      headers: [
        ['Cookie', cookiesWith(user, `fcs_csrf=${real}; fcs_csrf=%`)],
        ['Content-Type', FORM],
      ],
      body: new URLSearchParams({ csrf, email: person.email, password: 'not the right password' }).toString(),
    });
    // Past the CSRF check: the password was judged.
    expect(response.status).toBe(401);
    expect(response.body).toContain('do not match');
  });

  test('the unchanged cookies still sign in (the hostile cases above are refused for their cookie alone)', async ({ live, person }) => {
    const { user, action, csrf } = await live.atLogin();
    const response = await rawRequest(action, {
      method: 'POST',
      headers: [
        ['Cookie', user.cookieHeader()],
        ['Content-Type', FORM],
      ],
      body: new URLSearchParams({ csrf, ...person }).toString(),
    });
    expect(response.status).toBe(303);
  });
});

describe('headers Node refuses before the service sees them', () => {
  test.for([
    ['a raw NUL byte in the cookie', 400, 'fcs_csrf=abc\x00def'],
    ['a raw control character in the cookie', 400, 'fcs_csrf=abc\x01def'],
    ['a cookie larger than the header limit (16 KiB)', 431, `fcs_csrf=${'A'.repeat(20_000)}`],
  ] as const)('%s → %i on the page, the sign-in post and the consent post', async ([, status, fragment], { live, person }) => {
    const login = await live.atLogin();
    expect((await rawRequest(login.page, { headers: [['Cookie', cookiesWith(login.user, fragment)]] })).status).toBe(status);
    const post = await rawRequest(login.action, {
      method: 'POST',
      headers: [
        ['Cookie', cookiesWith(login.user, fragment)],
        ['Content-Type', FORM],
      ],
      body: new URLSearchParams({ csrf: login.csrf, ...person }).toString(),
    });
    expect(post.status).toBe(status);
    const consent = await live.atConsent();
    const confirm = await rawRequest(consent.action, {
      method: 'POST',
      headers: [
        ['Cookie', cookiesWith(consent.user, fragment)],
        ['Content-Type', FORM],
      ],
      body: new URLSearchParams({ csrf: consent.csrf }).toString(),
    });
    expect(confirm.status).toBe(status);
  });
});

describe('hostile request headers on the sign-in post', () => {
  /** `post(headers, body?)`: the sign-in post of a fresh interaction, a wrong password unless `body` is given. */
  const postTest = test.extend('post', ({ live, person }) => async (headers: [string, string][], body?: string) => {
    const { user, action, csrf } = await live.atLogin();
    return rawRequest(action, {
      method: 'POST',
      headers: [['Cookie', user.cookieHeader()], ...headers],
      body: body ?? new URLSearchParams({ csrf, email: person.email, password: 'not the right password' }).toString(),
    });
  });

  postTest('Sec-Fetch-Site: cross-site → 403 csrf_failed', async ({ post }) => {
    refusedAsCsrf(
      await post([
        ['Content-Type', FORM],
        ['Sec-Fetch-Site', 'cross-site'],
      ]),
    );
  });

  postTest('a body that is not a form (text/plain, JSON) → 403 csrf_failed (no token was read)', async ({ post }) => {
    refusedAsCsrf(await post([['Content-Type', 'text/plain']]));
    refusedAsCsrf(await post([['Content-Type', 'application/json']], '{"csrf":"x"}'));
  });

  postTest('no Content-Type at all → 403 csrf_failed', async ({ post }) => {
    refusedAsCsrf(await post([]));
  });

  postTest('an unsupported charset → 415', async ({ post }) => {
    expect((await post([['Content-Type', `${FORM}; charset=utf-16`]])).status).toBe(415);
  });

  postTest('an unknown Content-Encoding → 415; gzip that is not gzip → 400', async ({ post }) => {
    expect(
      (
        await post([
          ['Content-Type', FORM],
          ['Content-Encoding', 'x-bogus'],
        ])
      ).status,
    ).toBe(415);
    expect(
      (
        await post([
          ['Content-Type', FORM],
          ['Content-Encoding', 'gzip'],
        ])
      ).status,
    ).toBe(400);
  });

  postTest('an unparseable X-Forwarded-For from the trusted gateway still reaches the password check (401)', async ({ post }) => {
    const response = await post([
      ['Content-Type', FORM],
      ['X-Forwarded-For', '%%%, not-an-address, \xff'],
    ]);
    expect(response.status).toBe(401);
  });
});

describe('sign-in and consent form bodies are limited to 8 KiB', () => {
  /** A urlencoded form of exactly `bytes` bytes: the real CSRF token, the email and a padded password. */
  const formOf = (csrf: string, email: string, bytes: number) => {
    const start = new URLSearchParams({ csrf, email }).toString() + '&password=';
    return start + 'p'.repeat(bytes - start.length);
  };
  const post = (form: LiveForm, body: string) =>
    rawRequest(form.action, {
      method: 'POST',
      headers: [
        ['Cookie', form.user.cookieHeader()],
        ['Content-Type', FORM],
      ],
      body,
    });

  test.for([
    ['sign-in', 'atLogin'],
    ['consent', 'atConsent'],
  ] as const)('%s post over 8 KiB → 413 payload_too_large problem+json naming the limit', async ([, at], { live, person }) => {
    const form = await live[at]();
    const response = await post(form, formOf(form.csrf, person.email, 8 * 1024 + 1));
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')?.[0]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(response.body)).toMatchObject({
      status: 413,
      code: 'payload_too_large',
      detail: 'Request bodies may be at most 8192 bytes.',
    });
  });

  test('a sign-in post of exactly 8 KiB is read (the password is judged: 401)', async ({ live, person }) => {
    const form = await live.atLogin();
    const response = await post(form, formOf(form.csrf, person.email, 8 * 1024));
    expect(response.status).toBe(401);
  });
});
