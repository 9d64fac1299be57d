import { randomBytes } from 'node:crypto';
import { parseCookie } from 'cookie';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Redis } from 'ioredis';
import { IdentityError, type GrantStore, type LoginThrottle, type User, type UserStore } from '@fragrance/identity';
import { PayloadTooLargeError, type Logger } from '@fragrance/http';
import { accountPage, accountSignInPage, NOTICES } from '../views/account.ts';
import { csrfFailedPage, errorPage, minutesText } from '../views/pages.ts';
import type { createCsrf } from './csrf.ts';

export interface AccountDeps {
  redis: Redis;
  prefix: string;
  users: UserStore;
  grants: GrantStore;
  throttle: LoginThrottle;
  /** CSRF with its cookie scoped to /account. */
  csrf: ReturnType<typeof createCsrf>;
  /** Lifetime of an account session (the sign-in session lifetime). */
  sessionTtlSeconds: number;
  secure: boolean;
  logger: Logger;
}

const COOKIE = 'fcs_account';
const SESSION_ID = /^[\w-]{43}$/;
const FORM_LIMIT_BYTES = 8 * 1024;
/** Stricter than the other pages: forms post only here, and nothing may be loaded but our stylesheet. */
const ACCOUNT_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

interface Session {
  id: string;
  user: User;
}

/**
 * `/account`: a person signs in (same throttle and CSRF as the consent pages), sees the apps
 * they connected and disconnects them, changes their password, signs out here or everywhere.
 * Its own session (cookie `fcs_account`, path /account, in Redis), which "sign out everywhere"
 * and a password change end together with every sign-in session of the authorization server.
 */
export function accountRoutes(deps: AccountDeps): Router {
  const { redis, prefix, users, grants, throttle, csrf, logger } = deps;
  const router = Router();
  const sessionKey = (id: string) => `${prefix}account:session:${id}`;
  const parseForm = express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES });
  const form: RequestHandler = (req, res, next) =>
    parseForm(req, res, (err?: unknown) =>
      next((err as { type?: unknown } | undefined)?.type === 'entity.too.large' ? new PayloadTooLargeError(FORM_LIMIT_BYTES) : err),
    );
  const wrap = (handler: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };

  const send = (res: Response, status: number, html: string) =>
    void res
      .status(status)
      .type('html')
      .setHeader('Cache-Control', 'no-store')
      .setHeader('Content-Security-Policy', ACCOUNT_CSP)
      .send(html);

  const cookieId = (req: Request) => {
    const value = req.headers.cookie ? parseCookie(req.headers.cookie)[COOKIE] : undefined;
    return value !== undefined && SESSION_ID.test(value) ? value : undefined;
  };

  /** The signed-in person, when the session exists, the account is enabled, and no sign-out-everywhere came after it. */
  const sessionOf = async (req: Request): Promise<Session | undefined> => {
    const id = cookieId(req);
    if (!id) return undefined;
    const raw = await redis.get(sessionKey(id));
    const stored = raw ? (JSON.parse(raw) as { sub: string; created: number }) : undefined;
    if (!stored) return undefined;
    const [user, since] = await Promise.all([users.findById(stored.sub), users.sessionsValidSince(stored.sub)]);
    if (!user || user.disabled || stored.created < since) return undefined;
    return { id, user };
  };

  const startSession = async (res: Response, sub: string) => {
    const id = randomBytes(32).toString('base64url');
    await redis.set(sessionKey(id), JSON.stringify({ sub, created: Date.now() }), 'EX', deps.sessionTtlSeconds);
    res.cookie(COOKIE, id, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secure,
      path: '/account',
      maxAge: deps.sessionTtlSeconds * 1000,
    });
  };
  const endSession = async (res: Response, id: string) => {
    await redis.del(sessionKey(id));
    res.clearCookie(COOKIE, { httpOnly: true, sameSite: 'lax', secure: deps.secure, path: '/account' });
  };

  const noticeOf = (req: Request) => {
    const done = typeof req.query.done === 'string' ? req.query.done : undefined;
    return done && NOTICES[done] ? done : undefined;
  };
  const signInBinding = 'account-sign-in';
  const renderSignIn = (req: Request, res: Response, status = 200, error?: string, email?: string) => {
    const notice = noticeOf(req);
    send(
      res,
      status,
      accountSignInPage({
        action: '/account/sign-in',
        csrf: csrf.issue(req, res, signInBinding),
        ...(email === undefined ? {} : { email }),
        ...(error === undefined ? {} : { error }),
        ...(notice === undefined ? {} : { notice }),
      }),
    );
  };
  const renderAccount = async (req: Request, res: Response, session: Session, status = 200, passwordError?: string) => {
    const notice = noticeOf(req);
    send(
      res,
      status,
      accountPage({
        email: session.user.email,
        csrf: csrf.issue(req, res, `account:${session.id}`),
        apps: await grants.connectedApps(session.user.id),
        ...(notice === undefined ? {} : { notice }),
        ...(passwordError === undefined ? {} : { passwordError }),
      }),
    );
  };
  const refuseCsrf = (res: Response) => send(res, 403, csrfFailedPage());
  const done = (res: Response, notice: keyof typeof NOTICES) => void res.redirect(303, `/account?done=${notice}`);

  /** A post of a signed-in person with a valid CSRF token, else the answer already sent. */
  const signedInPost = async (req: Request, res: Response): Promise<Session | undefined> => {
    const session = await sessionOf(req);
    if (!session) {
      // Signed out meanwhile (elsewhere, or expired): back to the sign-in form.
      res.redirect(303, '/account');
      return undefined;
    }
    if (!csrf.verify(req, `account:${session.id}`)) return void refuseCsrf(res);
    return session;
  };

  const field = (req: Request, name: string, max = 1024) => {
    const value = (req.body as Record<string, unknown>)[name];
    return typeof value === 'string' ? value.slice(0, max) : '';
  };

  /** The throttle of the sign-in pages, for anything that checks a password. */
  const throttled = async (res: Response, email: string, address: string): Promise<string | undefined> => {
    const decision = await throttle.check(email, address);
    if (decision.allowed) return undefined;
    res.setHeader('Retry-After', String(decision.retryAfterSeconds));
    return `Too many failed attempts. Try again in ${minutesText(decision.retryAfterSeconds)}.`;
  };

  router.get(
    '/account',
    wrap(async (req, res) => {
      const session = await sessionOf(req);
      if (session) await renderAccount(req, res, session);
      else renderSignIn(req, res);
    }),
  );

  router.post(
    '/account/sign-in',
    form,
    wrap(async (req, res) => {
      if (!csrf.verify(req, signInBinding)) return void refuseCsrf(res);
      const email = field(req, 'email', 320);
      const password = field(req, 'password');
      if (!email || !password) return void renderSignIn(req, res, 400, 'Enter your email and password.', email);
      const address = req.ip ?? 'unknown';
      const blocked = await throttled(res, email, address);
      if (blocked) return void renderSignIn(req, res, 429, blocked, email);
      const user = await users.authenticate(email, password);
      if (!user) {
        await throttle.recordFailure(email, address);
        logger.info({ address }, 'account sign-in failed');
        return void renderSignIn(req, res, 401, 'That email and password do not match an active account.', email);
      }
      await throttle.recordSuccess(email);
      const previous = cookieId(req);
      if (previous) await redis.del(sessionKey(previous));
      await startSession(res, user.id);
      res.redirect(303, '/account');
    }),
  );

  router.post(
    '/account/disconnect',
    form,
    wrap(async (req, res) => {
      const session = await signedInPost(req, res);
      if (!session) return;
      const clientId = field(req, 'client_id', 2_000);
      if (!clientId) return void send(res, 400, errorPage({ title: 'Nothing to disconnect', message: 'No app was named.' }));
      const revoked = await grants.revoke(session.user.id, clientId);
      logger.info({ grants: revoked.length }, 'app disconnected by its user');
      done(res, 'disconnected');
    }),
  );

  router.post(
    '/account/password',
    form,
    wrap(async (req, res) => {
      const session = await signedInPost(req, res);
      if (!session) return;
      const current = field(req, 'current', 4096);
      const next = field(req, 'new', 4096);
      const address = req.ip ?? 'unknown';
      if (!current || !next) return renderAccount(req, res, session, 400, 'Enter your current password and the new one twice.');
      if (next !== field(req, 'confirm', 4096)) return renderAccount(req, res, session, 400, 'The two new passwords differ.');
      const blocked = await throttled(res, session.user.email, address);
      if (blocked) return renderAccount(req, res, session, 429, blocked);
      let changed: boolean;
      try {
        changed = await users.changePassword(session.user.id, current, next);
      } catch (error) {
        if (error instanceof IdentityError) return renderAccount(req, res, session, 400, `The new ${error.message}.`);
        throw error;
      }
      if (!changed) {
        await throttle.recordFailure(session.user.email, address);
        return renderAccount(req, res, session, 401, 'The current password is not right.');
      }
      // Every session from before the change has ended, this one too: this browser gets a new one.
      await endSession(res, session.id);
      await startSession(res, session.user.id);
      logger.info('password changed by its user; other sessions signed out');
      done(res, 'password');
    }),
  );

  router.post(
    '/account/sign-out',
    form,
    wrap(async (req, res) => {
      const session = await signedInPost(req, res);
      if (!session) return;
      await endSession(res, session.id);
      done(res, 'signed-out');
    }),
  );

  router.post(
    '/account/sign-out-everywhere',
    form,
    wrap(async (req, res) => {
      const session = await signedInPost(req, res);
      if (!session) return;
      await users.signOutEverywhere(session.user.id);
      await endSession(res, session.id);
      done(res, 'signed-out-everywhere');
    }),
  );

  return router;
}
