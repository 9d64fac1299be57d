// A cookie-keeping user agent that signs in and consents over plain HTTP the way a person would
// with the auth service's pages: it reads the forms and submits them, it does not call internals.

export interface Page {
  status: number;
  url: string;
  body: string;
  /** The Location header, resolved against `url`. */
  location?: string;
}

export interface ParsedForm {
  action: string;
  fields: Map<string, string>;
}

export class FormUser {
  readonly #cookies = new Map<string, string>();
  /** Cookies are sent only to this origin (the authorization server, or the edge in front of it). */
  readonly origin: string;

  constructor(origin: string) {
    this.origin = new URL(origin).origin;
  }

  #remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = value === '' || attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1] ?? '') < Date.now());
      if (expired) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** One request without following redirects; a `form` makes it a urlencoded POST. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const headers: Record<string, string> = { ...init.headers };
    if (new URL(url).origin === this.origin && this.#cookies.size > 0) headers.cookie = this.cookieHeader();
    const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    this.#remember(response);
    const location = response.headers.get('location');
    return { status: response.status, url, body: await response.text(), ...(location ? { location: new URL(location, url).href } : {}) };
  }

  /**
   * Follows redirects on our origin, signs in on the login form and presses Allow or Deny on
   * the consent form. Stops at the first redirect that leaves the origin (the client's
   * redirect URI) or at a page it has no answer for; returns that last response.
   */
  async authorize(
    authorizationUrl: string,
    credentials: { email: string; password: string },
    decision: 'allow' | 'deny' = 'allow',
  ): Promise<Page> {
    let page = await this.request(authorizationUrl);
    for (let step = 0; step < 12; step++) {
      if (page.location) {
        if (new URL(page.location).origin !== this.origin) return page;
        page = await this.request(page.location);
        continue;
      }
      if (page.status !== 200) return page;
      const forms = parseForms(page.body, page.url);
      const login = forms.find((f) => f.fields.has('password') || f.action.endsWith('/login'));
      if (login) {
        page = await this.request(login.action, { form: { ...Object.fromEntries(login.fields), ...credentials } });
        continue;
      }
      const wanted = forms.find((f) => f.action.endsWith(decision === 'allow' ? '/confirm' : '/abort'));
      if (wanted) {
        page = await this.request(wanted.action, { form: Object.fromEntries(wanted.fields) });
        continue;
      }
      return page;
    }
    throw new Error('too many steps in the authorization flow');
  }
}

/** Just enough HTML form parsing for our own pages. */
export function parseForms(html: string, baseUrl: string): ParsedForm[] {
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
