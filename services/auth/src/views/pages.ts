/**
 * Server-rendered pages of the authorization server: sign-in, consent and errors. Plain HTML
 * and one stylesheet, no script; every interpolated value goes through `esc`.
 */
export function esc(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- callers pass strings and numbers; anything else is escaped as whatever it prints
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export const ASSETS_PATH = '/oauth/assets';

/** The page around every body: one stylesheet, no script, readable on a phone (viewport). */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)} · Fragrance Catalogue</title>
<link rel="stylesheet" href="${ASSETS_PATH}/style.css">
<link rel="icon" href="${ASSETS_PATH}/favicon.svg" type="image/svg+xml">
</head>
<body>
<main class="card">
<p class="brand" aria-hidden="true">Fragrance Catalogue</p>
${body}
</main>
</body>
</html>
`;
}

export interface SignInView {
  /** The page title and its heading. */
  title: string;
  /** The line under the heading; `app`, when given, follows it in bold ("to continue to <app>"). */
  lead: string;
  app?: string;
  action: string;
  csrf: string;
  email?: string;
  error?: string;
  /** A fixed message after an earlier action (signed out, …), shown as a status. */
  notice?: string;
}

/** The one sign-in form: the consent interaction's and the account page's. */
export function signInPage(view: SignInView): string {
  const error = view.error ? `<p class="error" role="alert" id="login-error">${esc(view.error)}</p>` : '';
  const notice = view.notice ? `<p class="notice" role="status">${esc(view.notice)}</p>` : '';
  const described = view.error ? ' aria-describedby="login-error"' : '';
  const app = view.app === undefined ? '' : ` <strong>${esc(view.app)}</strong>`;
  return layout(
    view.title,
    `<h1>${esc(view.title)}</h1>
<p class="lead">${esc(view.lead)}${app}</p>
${notice}
${error}
<form class="login" method="post" action="${esc(view.action)}" novalidate>
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${esc(view.email)}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}>
<button type="submit" class="primary">Sign in</button>
</form>`,
  );
}

export interface ConsentView {
  confirmAction: string;
  abortAction: string;
  csrf: string;
  clientName: string;
  /** Where the client receives the result: its redirect host (or private-use scheme). */
  redirectHost: string;
  /** Set for clients identified by a metadata document URL: the host that vouches for them. */
  clientIdHost?: string;
  email: string;
  scopes: readonly { name: string; description: string }[];
  resource: string;
}

export function consentPage(view: ConsentView): string {
  const items = view.scopes.map((s) => `<li><strong>${esc(s.description)}</strong> <code>${esc(s.name)}</code></li>`).join('\n');
  const vouched = view.clientIdHost
    ? `<p class="meta">Client identified by a document published at <strong>${esc(view.clientIdHost)}</strong>.</p>`
    : `<p class="meta">The client chose this name itself when it registered.</p>`;
  return layout(
    'Allow access',
    `<h1>Allow <span class="client">${esc(view.clientName)}</span> access?</h1>
<p class="lead">Signed in as <strong>${esc(view.email)}</strong>.</p>
<p><strong>${esc(view.clientName)}</strong> is asking to:</p>
<ul class="scopes">
${items}
</ul>
<p class="meta">After you decide you will be sent to <strong>${esc(view.redirectHost)}</strong>.</p>
${vouched}
<p class="meta">Resource: <code>${esc(view.resource)}</code></p>
<div class="actions">
<form method="post" action="${esc(view.abortAction)}">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<button type="submit" class="secondary">Deny</button>
</form>
<form method="post" action="${esc(view.confirmAction)}">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<button type="submit" class="primary">Allow</button>
</form>
</div>`,
  );
}

export function errorPage(view: { title: string; message: string; code?: string }): string {
  const code = view.code ? `<p class="meta">Error code: <code>${esc(view.code)}</code></p>` : '';
  return layout(
    view.title,
    `<h1>${esc(view.title)}</h1>
<p class="error" role="alert">${esc(view.message)}</p>
${code}
<p class="meta">Return to the application you came from and start again.</p>`,
  );
}

/** One plain-language line per scope in scopes_supported, on the consent and account pages. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'catalogue:read': 'Search and read the fragrance catalogue',
  openid: 'Know who you are (your account identifier)',
  email: 'See your email address',
  offline_access: 'Keep access while you are away (refresh tokens)',
};

/** The page every form answers when its CSRF token is missing, stale or foreign (403). */
export const csrfFailedPage = (): string =>
  errorPage({
    title: 'Please try again',
    message: 'The form was too old or did not come from this site. Go back, reload the page and try again.',
    code: 'csrf_failed',
  });

/** "N minute(s)" for a throttle's Retry-After, rounded up. */
export function minutesText(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
