import { promisify } from 'node:util';
import { RedisStore } from 'connect-redis';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import session from 'express-session';
import type { Redis } from 'ioredis';
import { IdentityError, type GrantStore, type User, type UserStore } from '@fragrance/identity';
import type { Logger } from '@fragrance/http';
import { accountPage, NOTICES } from '../views/account.ts';
import { csrfFailedPage, errorPage } from '../views/pages.ts';
import type { createCsrf } from './csrf.ts';
import { field, formBody, type SignIn, type SignInForm } from './sign-in.ts';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in person. */
    sub: string;
    /** When they signed in (ms): a session from before their last "sign out everywhere" has ended. */
    created: number;
  }
}

export interface AccountDeps {
  redis: Redis;
  prefix: string;
  users: UserStore;
  grants: GrantStore;
  /** The sign-in flow, with the CSRF below. */
  signIn: SignIn;
  /** CSRF with its cookie scoped to /account. */
  csrf: ReturnType<typeof createCsrf>;
  /** Secrets that sign the session cookie (the first signs, all verify). */
  cookieKeys: readonly string[];
  /** Lifetime of an account session (the sign-in session lifetime). */
  sessionTtlSeconds: number;
  secure: boolean;
  logger: Logger;
}

const COOKIE = 'fcs_account';
const PATH = '/account';
/** Stricter than the other pages: forms post only here, and nothing may be loaded but our stylesheet. */
const ACCOUNT_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const SIGN_IN_BINDING = 'account-sign-in';

/** How every account page is sent. */
export function sendAccountPage(res: Response, status: number, html: string): void {
  res.status(status).type('html').setHeader('Cache-Control', 'no-store').setHeader('Content-Security-Policy', ACCOUNT_CSP).send(html);
}

/**
 * The account session: express-session with its state in Redis (connect-redis), cookie
 * `fcs_account` (httpOnly, SameSite=Lax, Secure behind https, path /account, signed with the
 * service's cookie keys). Regenerated at every sign-in (no fixation); ended server-side by
 * sign-out (the Redis entry is deleted) and by the person's cut-off time (signedInAs).
 */
export function accountSession(
  deps: Pick<AccountDeps, 'redis' | 'prefix' | 'cookieKeys' | 'sessionTtlSeconds' | 'secure'>,
): RequestHandler {
  return session({
    name: COOKIE,
    store: new RedisStore({ client: deps.redis, prefix: `${deps.prefix}account:session:`, ttl: deps.sessionTtlSeconds }),
    secret: [...deps.cookieKeys],
    resave: false,
    saveUninitialized: false,
    unset: 'destroy',
    cookie: { httpOnly: true, sameSite: 'lax', secure: deps.secure, path: PATH, maxAge: deps.sessionTtlSeconds * 1000 },
  });
}

/** The signed-in person: the session exists, the account is enabled, and no sign-out-everywhere came after it. */
async function signedInAs(users: UserStore, req: Request): Promise<User | undefined> {
  const { sub, created } = req.session;
  if (!sub || created === undefined) return undefined;
  const [user, since] = await Promise.all([users.findById(sub), users.sessionsValidSince(sub)]);
  return user && !user.disabled && created >= since ? user : undefined;
}

/** A new session id for `sub` (the old id, if any, is gone from Redis). */
async function startSession(req: Request, sub: string): Promise<void> {
  await promisify(req.session.regenerate.bind(req.session))();
  req.session.sub = sub;
  req.session.created = Date.now();
  await promisify(req.session.save.bind(req.session))();
}

async function endSession(req: Request, res: Response, secure: boolean): Promise<void> {
  await promisify(req.session.destroy.bind(req.session))();
  res.clearCookie(COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: PATH });
}

/** The notice the query names (`?done=`), if it is one of ours; nothing from the URL is shown. */
const noticeOf = (req: Request): string | undefined => {
  const done = typeof req.query.done === 'string' ? req.query.done : undefined;
  return done && NOTICES[done] ? done : undefined;
};

function signInForm(req: Request): SignInForm {
  const key = noticeOf(req);
  const notice = key === undefined ? undefined : NOTICES[key];
  return {
    title: 'Your account',
    lead: 'Sign in to see the apps you connected, disconnect them, or change your password.',
    action: `${PATH}/sign-in`,
    ...(notice === undefined ? {} : { notice }),
  };
}

async function renderAccount(deps: AccountDeps, req: Request, res: Response, user: User, status = 200, passwordError?: string) {
  const notice = noticeOf(req);
  const page = accountPage({
    email: user.email,
    csrf: deps.csrf.issue(req, res, `account:${req.sessionID}`),
    apps: await deps.grants.connectedApps(user.id),
    ...(notice === undefined ? {} : { notice }),
    ...(passwordError === undefined ? {} : { passwordError }),
  });
  sendAccountPage(res, status, page);
}

/** The person behind a post with a valid CSRF token, else undefined with the answer sent. */
async function signedInPost(deps: AccountDeps, req: Request, res: Response): Promise<User | undefined> {
  const user = await signedInAs(deps.users, req);
  // Signed out meanwhile (elsewhere, or expired): back to the sign-in form.
  if (!user) return void res.redirect(303, PATH);
  if (!deps.csrf.verify(req, `account:${req.sessionID}`)) return void sendAccountPage(res, 403, csrfFailedPage());
  return user;
}

const done = (res: Response, notice: keyof typeof NOTICES) => void res.redirect(303, `${PATH}?done=${notice}`);

/** Change password: the current one (a wrong one counts as a failed sign-in), the new one twice. */
async function changePassword(deps: AccountDeps, req: Request, res: Response, user: User): Promise<void> {
  const current = field(req, 'current', 4096);
  const next = field(req, 'new', 4096);
  if (!current || !next) return renderAccount(deps, req, res, user, 400, 'Enter your current password and the new one twice.');
  if (next !== field(req, 'confirm', 4096)) return renderAccount(deps, req, res, user, 400, 'The two new passwords differ.');
  const blocked = await deps.signIn.throttled(req, res, user.email);
  if (blocked) return renderAccount(deps, req, res, user, 429, blocked);
  let changed: boolean;
  try {
    changed = await deps.users.changePassword(user.id, current, next);
  } catch (error) {
    if (error instanceof IdentityError) return renderAccount(deps, req, res, user, 400, `The new ${error.message}.`);
    throw error;
  }
  if (!changed) {
    await deps.signIn.failed(req, user.email);
    return renderAccount(deps, req, res, user, 401, 'The current password is not right.');
  }
  // Every session from before the change has ended, this one too: this browser gets a new one.
  await startSession(req, user.id);
  deps.logger.info('password changed by its user; other sessions signed out');
  done(res, 'password');
}

/**
 * `/account`: a person signs in (the sign-in flow of the consent pages), sees the apps they
 * connected and disconnects them, changes their password, signs out here or everywhere.
 * "Sign out everywhere" and a password change end every account session and every sign-in
 * session of the authorization server through the person's cut-off time.
 */
export function accountRoutes(deps: AccountDeps): Router {
  const { users, grants, signIn, logger } = deps;
  const router = Router();
  router.use(PATH, accountSession(deps));

  router.get(PATH, async (req, res) => {
    const user = await signedInAs(users, req);
    if (user) await renderAccount(deps, req, res, user);
    else signIn.render(req, res, SIGN_IN_BINDING, signInForm(req));
  });

  router.post(`${PATH}/sign-in`, formBody, (req, res) =>
    signIn.submit(req, res, {
      binding: SIGN_IN_BINDING,
      form: signInForm(req),
      onSuccess: async (user) => {
        await startSession(req, user.id);
        res.redirect(303, PATH);
      },
    }),
  );

  router.post(`${PATH}/disconnect`, formBody, async (req, res) => {
    const user = await signedInPost(deps, req, res);
    if (!user) return;
    const clientId = field(req, 'client_id', 2_000);
    if (!clientId) return void sendAccountPage(res, 400, errorPage({ title: 'Nothing to disconnect', message: 'No app was named.' }));
    const revoked = await grants.revoke(user.id, clientId);
    logger.info({ grants: revoked.length }, 'app disconnected by its user');
    done(res, 'disconnected');
  });

  router.post(`${PATH}/password`, formBody, async (req, res) => {
    const user = await signedInPost(deps, req, res);
    if (user) await changePassword(deps, req, res, user);
  });

  router.post(`${PATH}/sign-out`, formBody, async (req, res) => {
    if (!(await signedInPost(deps, req, res))) return;
    await endSession(req, res, deps.secure);
    done(res, 'signed-out');
  });

  router.post(`${PATH}/sign-out-everywhere`, formBody, async (req, res) => {
    const user = await signedInPost(deps, req, res);
    if (!user) return;
    await users.signOutEverywhere(user.id);
    await endSession(req, res, deps.secure);
    done(res, 'signed-out-everywhere');
  });

  return router;
}
