import { Router, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import type { UserStore } from '@fragrance/identity';
import { CATALOGUE_SCOPE, SCOPES } from '../provider.ts';
import { consentPage, csrfFailedPage, errorPage, SCOPE_DESCRIPTIONS } from '../views/pages.ts';
import type { createCsrf } from './csrf.ts';
import { formBody, type SignIn, type SignInForm } from './sign-in.ts';

export interface InteractionDeps {
  provider: Provider;
  users: UserStore;
  /** The sign-in flow, with the CSRF below. */
  signIn: SignIn;
  csrf: ReturnType<typeof createCsrf>;
  resource: string;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** How the sign-in and consent pages are sent (their CSP is the app's). */
export function sendPage(res: Response, status: number, html: string): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store').send(html);
}

const refuseCsrf = (res: Response) => sendPage(res, 403, csrfFailedPage());

/** Where the client will receive the result, shown on the consent page. */
function redirectTarget(redirectUri: unknown): string {
  const url = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (!url) return 'an unknown address';
  return url.host ? url.host : `${url.protocol} (an app on your device)`;
}

/** The interaction of this request, or undefined with an error page sent (unknown, expired, another one's uid). */
async function load(provider: Provider, req: Request, res: Response): Promise<Details | undefined> {
  try {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== req.params.uid) throw new Error('interaction mismatch');
    return details;
  } catch {
    const page = errorPage({
      title: 'This sign-in has expired',
      message: 'The sign-in session was not found or has expired.',
      code: 'invalid_request',
    });
    sendPage(res, 400, page);
    return undefined;
  }
}

async function clientOf(provider: Provider, details: Details) {
  const client = await provider.Client.find(String(details.params.client_id));
  const clientId = client?.clientId ?? String(details.params.client_id);
  const cimdHost = clientId.startsWith('https://') ? URL.parse(clientId)?.host : undefined;
  return { name: client?.clientName ?? cimdHost ?? clientId, cimdHost, refreshes: client?.grantTypeAllowed('refresh_token') ?? false };
}

/**
 * What the person allows: every supported scope asked for, the catalogue scope (the default),
 * and offline access whenever the client may refresh (it gets refresh tokens whether or not it
 * asked). The grant records the same list, /account shows it, the token response names it.
 */
function allowedScopes(details: Details, refreshes: boolean): string[] {
  const asked = new Set(typeof details.params.scope === 'string' ? details.params.scope.split(' ') : []);
  asked.add(CATALOGUE_SCOPE);
  if (refreshes) asked.add('offline_access');
  return SCOPES.filter((s) => asked.has(s));
}

const loginForm = async (provider: Provider, details: Details): Promise<SignInForm> => ({
  title: 'Sign in',
  lead: 'to continue to',
  app: (await clientOf(provider, details)).name,
  action: `/oauth/interaction/${details.uid}/login`,
});

async function renderConsent(deps: InteractionDeps, req: Request, res: Response, details: Details): Promise<void> {
  const client = await clientOf(deps.provider, details);
  const user = details.session?.accountId ? await deps.users.findById(details.session.accountId) : undefined;
  const page = consentPage({
    confirmAction: `/oauth/interaction/${details.uid}/confirm`,
    abortAction: `/oauth/interaction/${details.uid}/abort`,
    csrf: deps.csrf.issue(req, res, details.uid),
    clientName: client.name,
    redirectHost: redirectTarget(details.params.redirect_uri),
    ...(client.cimdHost ? { clientIdHost: client.cimdHost } : {}),
    email: user?.email ?? 'unknown user',
    // A scope without a description is still shown, by its name: nothing released goes unlisted.
    scopes: allowedScopes(details, client.refreshes).map((s) => ({ name: s, description: SCOPE_DESCRIPTIONS[s] ?? s })),
    resource: deps.resource,
  });
  sendPage(res, 200, page);
}

/** The grant a consent saves: what the consent page showed (allowedScopes), nothing more. */
async function consentGrant(provider: Provider, details: Details, accountId: string) {
  const clientId = String(details.params.client_id);
  const grant = details.grantId
    ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId }))
    : new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  // Shown on the consent page whenever the client may refresh: recorded so /account lists it too.
  if ((await clientOf(provider, details)).refreshes) grant.addOIDCScope('offline_access');
  if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant;
}

/**
 * The sign-in and consent pages oidc-provider sends the browser to (`/oauth/interaction/:uid`).
 * An unknown or expired interaction gets an error page, never a redirect.
 */
export function interactionRoutes(deps: InteractionDeps): Router {
  const { provider, signIn, csrf } = deps;
  const router = Router();

  router.get('/oauth/interaction/:uid', async (req, res) => {
    const details = await load(provider, req, res);
    if (!details) return;
    if (details.prompt.name === 'login') return void signIn.render(req, res, details.uid, await loginForm(provider, details));
    if (details.prompt.name === 'consent') return renderConsent(deps, req, res, details);
    sendPage(res, 400, errorPage({ title: 'Unsupported request', message: `Unsupported prompt ${details.prompt.name}.` }));
  });

  router.post('/oauth/interaction/:uid/login', formBody, async (req, res) => {
    const details = await load(provider, req, res);
    if (!details) return;
    await signIn.submit(req, res, {
      binding: details.uid,
      form: await loginForm(provider, details),
      ...(details.prompt.name === 'login' ? {} : { signedIn: () => renderConsent(deps, req, res, details) }),
      onSuccess: (user) => provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false }),
    });
  });

  router.post('/oauth/interaction/:uid/confirm', formBody, async (req, res) => {
    const details = await load(provider, req, res);
    if (!details) return;
    if (!csrf.verify(req, details.uid)) return void refuseCsrf(res);
    const accountId = details.session?.accountId;
    if (details.prompt.name !== 'consent' || !accountId) {
      return void sendPage(res, 400, errorPage({ title: 'Sign in first', message: 'Consent needs a signed-in user.' }));
    }
    const grantId = await (await consentGrant(provider, details, accountId)).save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });

  router.post('/oauth/interaction/:uid/abort', formBody, async (req, res) => {
    const details = await load(provider, req, res);
    if (!details) return;
    if (!csrf.verify(req, details.uid)) return void refuseCsrf(res);
    const denied = { error: 'access_denied', error_description: 'The user denied the request.' };
    await provider.interactionFinished(req, res, denied, { mergeWithLastSubmission: false });
  });

  return router;
}
