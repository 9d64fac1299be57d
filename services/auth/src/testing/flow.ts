// Test support: the raw HTTP steps of the code flow, so tests can break each one on purpose.
import { createHash, randomBytes } from 'node:crypto';
import { FormUser, type Page } from '@fragrance/testkit';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(issuer: string, metadata: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

export async function registerClient(issuer: string, redirectUris: string[], name = 'Test Client'): Promise<string> {
  const { status, body } = await register(issuer, {
    client_name: name,
    redirect_uris: redirectUris,
  });
  if (status !== 201) throw new Error(`registration failed: ${JSON.stringify(body)}`);
  return body.client_id as string;
}

export function authorizeUrl(issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${issuer}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

export async function token(issuer: string, form: Record<string, string>) {
  const response = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

export interface CodeResult {
  code: string;
  verifier: string;
  callback: URL;
}

/** Signs in and consents as `credentials`, returning the code sent to redirectUri. */
export async function obtainCode(
  issuer: string,
  clientId: string,
  redirectUri: string,
  credentials: { email: string; password: string },
  extra: Record<string, string | undefined> = {},
  user = new FormUser(issuer),
): Promise<CodeResult> {
  const { verifier, challenge } = pkcePair();
  const final: Page = await user.authorize(
    authorizeUrl(issuer, {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-' + randomBytes(6).toString('hex'),
      ...extra,
    }),
    credentials,
  );
  if (!final.location) throw new Error(`no redirect: ${final.status} ${final.body.slice(0, 300)}`);
  const callback = new URL(final.location);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  return { code, verifier, callback };
}

export async function exchange(issuer: string, clientId: string, redirectUri: string, result: CodeResult) {
  return token(issuer, {
    grant_type: 'authorization_code',
    code: result.code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: result.verifier,
  });
}

/** Follows redirects while they stay on the user's origin; returns the first page that leaves it or stays. */
export async function followOnOrigin(user: FormUser, page: Page): Promise<Page> {
  while (page.location && new URL(page.location).origin === user.origin) page = await user.request(page.location);
  return page;
}
