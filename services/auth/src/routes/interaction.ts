import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type Provider from 'oidc-provider';
import type { LoginThrottle, UserStore } from '@fragrance/identity';
import { PayloadTooLargeError, type Logger } from '@fragrance/http';
import { CATALOGUE_SCOPE, SCOPES } from '../provider.ts';
import { consentPage, csrfFailedPage, errorPage, loginPage, minutesText, SCOPE_DESCRIPTIONS } from '../views/pages.ts';
import type { createCsrf } from './csrf.ts';
import { signIns } from '../metrics.ts';

export interface InteractionDeps {
  provider: Provider;
  users: UserStore;
  throttle: LoginThrottle;
  csrf: ReturnType<typeof createCsrf>;
  resource: string;
  logger: Logger;
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Largest sign-in or consent form body (a few short fields). */
const FORM_LIMIT_BYTES = 8 * 1024;

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store').send(html);
}

/** Where the client will receive the result, shown on the consent page. */
function redirectTarget(redirectUri: unknown): string {
  const url = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (!url) return 'an unknown address';
  return url.host ? url.host : `${url.protocol} (an app on your device)`;
}

/**
 * The sign-in and consent pages oidc-provider sends the browser to (`/oauth/interaction/:uid`).
 * An unknown or expired interaction gets an error page, never a redirect.
 */
export function interactionRoutes(deps: InteractionDeps): Router {
  const { provider, users, throttle, csrf, resource, logger } = deps;
  const router = Router();
  const parseForm = express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES });
  // body-parser's own 413 would reach the problem handler as a generic bad_request.
  const form: RequestHandler = (req, res, next) =>
    parseForm(req, res, (err?: unknown) =>
      next((err as { type?: unknown } | undefined)?.type === 'entity.too.large' ? new PayloadTooLargeError(FORM_LIMIT_BYTES) : err),
    );

  const load = async (req: Request, res: Response): Promise<Details | undefined> => {
    try {
      const details = await provider.interactionDetails(req, res);
      if (details.uid !== req.params.uid) throw new Error('interaction mismatch');
      return details;
    } catch {
      sendPage(
        res,
        400,
        errorPage({
          title: 'This sign-in has expired',
          message: 'The sign-in session was not found or has expired.',
          code: 'invalid_request',
        }),
      );
      return undefined;
    }
  };

  const clientOf = async (details: Details) => {
    const client = await provider.Client.find(String(details.params.client_id));
    const clientId = client?.clientId ?? String(details.params.client_id);
    const cimdHost = clientId.startsWith('https://') ? URL.parse(clientId)?.host : undefined;
    return { name: client?.clientName ?? cimdHost ?? clientId, cimdHost, refreshes: client?.grantTypeAllowed('refresh_token') ?? false };
  };

  /**
   * What the person allows: every supported scope asked for, the catalogue scope (the default),
   * and offline access whenever the client may refresh (it gets refresh tokens whether or not it
   * asked). The grant records the same list, /account shows it, the token response names it.
   */
  const allowedScopes = (details: Details, refreshes: boolean): string[] => {
    const asked = new Set(typeof details.params.scope === 'string' ? details.params.scope.split(' ') : []);
    asked.add(CATALOGUE_SCOPE);
    if (refreshes) asked.add('offline_access');
    return SCOPES.filter((s) => asked.has(s));
  };

  const renderLogin = async (req: Request, res: Response, details: Details, status = 200, error?: string, email?: string) => {
    const client = await clientOf(details);
    sendPage(
      res,
      status,
      loginPage({
        action: `/oauth/interaction/${details.uid}/login`,
        csrf: csrf.issue(req, res, details.uid),
        clientName: client.name,
        ...(email === undefined ? {} : { email }),
        ...(error === undefined ? {} : { error }),
      }),
    );
  };

  const renderConsent = async (req: Request, res: Response, details: Details) => {
    const client = await clientOf(details);
    const user = details.session?.accountId ? await users.findById(details.session.accountId) : undefined;
    sendPage(
      res,
      200,
      consentPage({
        confirmAction: `/oauth/interaction/${details.uid}/confirm`,
        abortAction: `/oauth/interaction/${details.uid}/abort`,
        csrf: csrf.issue(req, res, details.uid),
        clientName: client.name,
        redirectHost: redirectTarget(details.params.redirect_uri),
        ...(client.cimdHost ? { clientIdHost: client.cimdHost } : {}),
        email: user?.email ?? 'unknown user',
        // A scope without a description is still shown, by its name: nothing released goes unlisted.
        scopes: allowedScopes(details, client.refreshes).map((s) => ({ name: s, description: SCOPE_DESCRIPTIONS[s] ?? s })),
        resource,
      }),
    );
  };

  const wrap = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };

  const refuseCsrf = (res: Response) => sendPage(res, 403, csrfFailedPage());

  router.get(
    '/oauth/interaction/:uid',
    wrap(async (req, res) => {
      const details = await load(req, res);
      if (!details) return;
      if (details.prompt.name === 'login') return renderLogin(req, res, details);
      if (details.prompt.name === 'consent') return renderConsent(req, res, details);
      sendPage(
        res,
        400,
        errorPage({
          title: 'Unsupported request',
          message: `Unsupported prompt ${details.prompt.name}.`,
        }),
      );
    }),
  );

  router.post(
    '/oauth/interaction/:uid/login',
    form,
    wrap(async (req, res) => {
      const details = await load(req, res);
      if (!details) return;
      if (!csrf.verify(req, details.uid)) return void refuseCsrf(res);
      if (details.prompt.name !== 'login') return renderConsent(req, res, details);
      const body = req.body as Record<string, unknown>;
      const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
      const password = typeof body.password === 'string' ? body.password : '';
      if (!email || !password) return renderLogin(req, res, details, 400, 'Enter your email and password.', email);
      const address = req.ip ?? 'unknown';
      const decision = await throttle.check(email, address);
      if (!decision.allowed) {
        signIns.inc({ result: 'throttled' });
        res.setHeader('Retry-After', String(decision.retryAfterSeconds));
        return renderLogin(
          req,
          res,
          details,
          429,
          `Too many failed sign-ins. Try again in ${minutesText(decision.retryAfterSeconds)}.`,
          email,
        );
      }
      const user = await users.authenticate(email, password);
      if (!user) {
        signIns.inc({ result: 'failed' });
        await throttle.recordFailure(email, address);
        logger.info({ address }, 'sign-in failed');
        return renderLogin(req, res, details, 401, 'That email and password do not match an active account.', email);
      }
      signIns.inc({ result: 'success' });
      await throttle.recordSuccess(email);
      await provider.interactionFinished(req, res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
    }),
  );

  router.post(
    '/oauth/interaction/:uid/confirm',
    form,
    wrap(async (req, res) => {
      const details = await load(req, res);
      if (!details) return;
      if (!csrf.verify(req, details.uid)) return void refuseCsrf(res);
      if (details.prompt.name !== 'consent' || !details.session?.accountId) {
        return void sendPage(res, 400, errorPage({ title: 'Sign in first', message: 'Consent needs a signed-in user.' }));
      }
      const clientId = String(details.params.client_id);
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId: details.session.accountId, clientId }))
        : new provider.Grant({ accountId: details.session.accountId, clientId });
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      // Shown on the consent page whenever the client may refresh: recorded so /account lists it too.
      if ((await clientOf(details)).refreshes) grant.addOIDCScope('offline_access');
      if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }),
  );

  router.post(
    '/oauth/interaction/:uid/abort',
    form,
    wrap(async (req, res) => {
      const details = await load(req, res);
      if (!details) return;
      if (!csrf.verify(req, details.uid)) return void refuseCsrf(res);
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The user denied the request.' },
        { mergeWithLastSubmission: false },
      );
    }),
  );

  return router;
}
