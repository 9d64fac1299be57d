// Test support for the end-to-end test: the real auth, catalogue and gateway services as child
// processes (services never import each other), on free loopback ports, plus a small form-driving
// user agent that signs in and consents over HTTP like a person would.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { REPO_ROOT } from '@fragrance/testkit';

export interface RunningService {
  name: string;
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `services/<name>/src/main.ts` with env and waits until its /health answers 200. */
export async function startService(name: string, port: number, env: Record<string, string>, timeoutMs = 60_000): Promise<RunningService> {
  const child: ChildProcess = spawn(process.execPath, [`services/${name}/src/main.ts`], {
    cwd: REPO_ROOT,
    // eslint-disable-next-line no-restricted-properties -- children need the toolchain's PATH, nothing else of ours
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const service: RunningService = {
    name,
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return service;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  await service.stop();
  throw new Error(`${name} did not become healthy:\n${output}`);
}

export interface Page {
  status: number;
  url: string;
  body: string;
  location?: string;
}

/** A cookie-keeping user agent that reads our sign-in and consent forms and submits them. */
export class FormUser {
  readonly #cookies = new Map<string, string>();
  readonly #origin: string;

  constructor(origin: string) {
    this.#origin = new URL(origin).origin;
  }

  async request(url: string, form?: Record<string, string>): Promise<Page> {
    const headers: Record<string, string> = {};
    if (new URL(url).origin === this.#origin && this.#cookies.size > 0) {
      headers.cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    const body = form ? new URLSearchParams(form).toString() : undefined;
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { method: body ? 'POST' : 'GET', headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      if (value) this.#cookies.set(name, value);
      else this.#cookies.delete(name);
    }
    const location = res.headers.get('location');
    return { status: res.status, url, body: await res.text(), ...(location ? { location: new URL(location, url).href } : {}) };
  }

  /** Follows our own redirects, signs in, allows; returns the redirect that leaves the origin. */
  async authorize(authorizationUrl: string, credentials: { email: string; password: string }): Promise<Page> {
    let page = await this.request(authorizationUrl);
    for (let step = 0; step < 12; step++) {
      if (page.location) {
        if (new URL(page.location).origin !== this.#origin) return page;
        page = await this.request(page.location);
        continue;
      }
      if (page.status !== 200) return page;
      const forms = parseForms(page.body, page.url);
      const login = forms.find((f) => f.fields.has('password'));
      if (login) {
        page = await this.request(login.action, { ...Object.fromEntries(login.fields), ...credentials });
        continue;
      }
      const allow = forms.find((f) => f.action.endsWith('/confirm'));
      if (allow) {
        page = await this.request(allow.action, Object.fromEntries(allow.fields));
        continue;
      }
      return page;
    }
    throw new Error('too many steps in the authorization flow');
  }
}

function parseForms(html: string, baseUrl: string): { action: string; fields: Map<string, string> }[] {
  const decode = (s: string) => s.replaceAll('&amp;', '&').replaceAll('&quot;', '"');
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match) => {
    const fields = new Map<string, string>();
    for (const input of (match[2] ?? '').matchAll(/<input\b([^>]*)>/gi)) {
      const name = /name="([^"]*)"/i.exec(input[1] ?? '')?.[1];
      if (name) fields.set(name, decode(/value="([^"]*)"/i.exec(input[1] ?? '')?.[1] ?? ''));
    }
    const action = /action="([^"]*)"/i.exec(match[1] ?? '')?.[1] ?? '';
    return { action: new URL(decode(action), baseUrl).href, fields };
  });
}

/** An in-memory OAuthClientProvider, as an MCP host would keep it. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly #redirect: string;
  constructor(redirect: string) {
    this.#redirect = redirect;
  }
  client?: OAuthClientInformationMixed;
  saved: OAuthTokens[] = [];
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.#redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
