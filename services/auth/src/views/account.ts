/**
 * The account page (`/account`): the apps the person connected with Disconnect, change password,
 * sign out (its sign-in form is `signInPage`). Server-rendered like the consent pages: no script,
 * one stylesheet, every interpolated value through `esc`.
 */
import { esc, layout, SCOPE_DESCRIPTIONS } from './pages.ts';

export interface AccountApp {
  clientId: string;
  clientName?: string;
  clientUri?: string;
  scopes: readonly string[];
  firstAuthorizedAt: string;
  lastUsedAt?: string;
}

/** Fixed messages after an action (the query names one; nothing from the URL is shown). */
export const NOTICES: Readonly<Record<string, string>> = {
  disconnected: 'The app was disconnected. Its access stopped at once; it must ask you again to reconnect.',
  password: 'Your password was changed. Every other session was signed out.',
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out everywhere: on this device and every other one.',
};

const when = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');

function notice(key: string | undefined): string {
  const text = key ? NOTICES[key] : undefined;
  return text ? `<p class="notice" role="status">${esc(text)}</p>` : '';
}

function alert(error: string | undefined, id: string): string {
  return error ? `<p class="error" role="alert" id="${id}">${esc(error)}</p>` : '';
}

export interface AccountView {
  email: string;
  csrf: string;
  apps: readonly AccountApp[];
  notice?: string;
  passwordError?: string;
}

function appItem(app: AccountApp, csrf: string): string {
  const name = app.clientName ?? 'Unnamed app';
  const scopes = app.scopes.map((s) => `<li>${esc(SCOPE_DESCRIPTIONS[s] ?? s)} <code>${esc(s)}</code></li>`).join('');
  const uri = app.clientUri ? `<dt>Web site (as registered)</dt><dd><code>${esc(app.clientUri)}</code></dd>` : '';
  return `<li class="app">
<h3>${esc(name)}</h3>
<dl>
<dt>Client id</dt><dd><code>${esc(app.clientId)}</code></dd>
${uri}
<dt>Can</dt><dd><ul class="scopes">${scopes}</ul></dd>
<dt>First allowed</dt><dd>${esc(when(app.firstAuthorizedAt))}</dd>
<dt>Last used</dt><dd>${esc(when(app.lastUsedAt))}</dd>
</dl>
<form method="post" action="/account/disconnect">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="client_id" value="${esc(app.clientId)}">
<button type="submit" class="secondary" aria-label="Disconnect ${esc(name)}">Disconnect</button>
</form>
</li>`;
}

export function accountPage(view: AccountView): string {
  const apps = view.apps.length
    ? `<ul class="apps">\n${view.apps.map((app) => appItem(app, view.csrf)).join('\n')}\n</ul>`
    : '<p class="meta">No apps are connected to your account.</p>';
  const described = view.passwordError ? ' aria-describedby="password-error"' : '';
  return layout(
    'Your account',
    `<h1>Your account</h1>
<p class="lead">Signed in as <strong>${esc(view.email)}</strong>.</p>
${notice(view.notice)}
<section aria-labelledby="apps-heading">
<h2 id="apps-heading">Connected apps</h2>
<p class="meta">Names are chosen by the apps themselves when they register. Disconnecting stops an app at once.</p>
${apps}
</section>
<section aria-labelledby="password-heading">
<h2 id="password-heading">Change password</h2>
${alert(view.passwordError, 'password-error')}
<form class="login" method="post" action="/account/password" novalidate>
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<input type="text" name="username" autocomplete="username" value="${esc(view.email)}" hidden>
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required${described}>
<label for="new">New password</label>
<input id="new" name="new" type="password" autocomplete="new-password" minlength="12" required${described}>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required${described}>
<button type="submit" class="primary">Change password</button>
</form>
<p class="meta">Changing it signs you out everywhere else.</p>
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Sign out</h2>
<div class="actions">
<form method="post" action="/account/sign-out">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<button type="submit" class="secondary">Sign out</button>
</form>
<form method="post" action="/account/sign-out-everywhere">
<input type="hidden" name="csrf" value="${esc(view.csrf)}">
<button type="submit" class="secondary">Sign out everywhere</button>
</form>
</div>
</section>`,
  );
}
