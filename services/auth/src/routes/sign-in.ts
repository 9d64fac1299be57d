import express, { type Request, type RequestHandler, type Response } from 'express';
import type { LoginThrottle, User, UserStore } from '@fragrance/identity';
import { PayloadTooLargeError, type Logger } from '@fragrance/http';
import { signIns } from '../metrics.ts';
import { csrfFailedPage, minutesText, signInPage, type SignInView } from '../views/pages.ts';
import type { createCsrf } from './csrf.ts';

/** Largest body of any form these pages post (a few short fields). */
export const FORM_LIMIT_BYTES = 8 * 1024;

const parseForm = express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES });

/** The parser of every form the pages post; body-parser's own 413 would reach the problem handler as a generic bad_request. */
export const formBody: RequestHandler = (req, res, next) =>
  parseForm(req, res, (err?: unknown) =>
    next((err as { type?: unknown } | undefined)?.type === 'entity.too.large' ? new PayloadTooLargeError(FORM_LIMIT_BYTES) : err),
  );

/** A form field as a string (missing or not a string: ''), cut to `max` characters. */
export function field(req: Request, name: string, max = 1024): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

export type SendPage = (res: Response, status: number, html: string) => void;

export interface SignInDeps {
  users: UserStore;
  throttle: LoginThrottle;
  csrf: ReturnType<typeof createCsrf>;
  logger: Logger;
  /** Sends a page with the headers of the pages it belongs to. */
  send: SendPage;
}

/** What the form says around its fields; the CSRF token, email and error are filled in here. */
export type SignInForm = Omit<SignInView, 'csrf' | 'email' | 'error'>;

export interface SignInSubmission {
  /** What the CSRF token is bound to (the interaction, the account page). */
  binding: string;
  form: SignInForm;
  /** Set when the person is signed in already (a form posted twice): answered instead, after the CSRF check. */
  signedIn?: () => Promise<void>;
  /** The password matched an active account. */
  onSuccess: (user: User) => Promise<void>;
}

/**
 * The one sign-in flow of the consent interaction and the account page: CSRF, the throttle
 * (checked before the password, so a blocked guesser costs no scrypt time), authentication,
 * failure accounting, `auth_sign_ins_total`, and the one form view.
 */
export function createSignIn(deps: SignInDeps) {
  const { users, throttle, csrf, logger, send } = deps;

  const render = (req: Request, res: Response, binding: string, form: SignInForm, status = 200, error?: string, email?: string) =>
    send(
      res,
      status,
      signInPage({
        ...form,
        csrf: csrf.issue(req, res, binding),
        ...(email === undefined ? {} : { email }),
        ...(error === undefined ? {} : { error }),
      }),
    );

  /** The throttle's refusal (Retry-After set), or undefined while `email` and the address may still try a password. */
  const throttled = async (req: Request, res: Response, email: string): Promise<string | undefined> => {
    const decision = await throttle.check(email, req.ip ?? 'unknown');
    if (decision.allowed) return undefined;
    res.setHeader('Retry-After', String(decision.retryAfterSeconds));
    return `Too many failed sign-ins. Try again in ${minutesText(decision.retryAfterSeconds)}.`;
  };

  /** A wrong password for `email`: counts towards both throttles. */
  const failed = (req: Request, email: string) => throttle.recordFailure(email, req.ip ?? 'unknown');

  async function submit(req: Request, res: Response, submission: SignInSubmission): Promise<void> {
    const { binding, form } = submission;
    if (!csrf.verify(req, binding)) return void send(res, 403, csrfFailedPage());
    if (submission.signedIn) return submission.signedIn();
    const email = field(req, 'email', 320);
    const password = field(req, 'password', 4096);
    if (!email || !password) return void render(req, res, binding, form, 400, 'Enter your email and password.', email);
    const blocked = await throttled(req, res, email);
    if (blocked) {
      signIns.inc({ result: 'throttled' });
      return void render(req, res, binding, form, 429, blocked, email);
    }
    const user = await users.authenticate(email, password);
    if (!user) {
      signIns.inc({ result: 'failed' });
      await failed(req, email);
      logger.info({ address: req.ip }, 'sign-in failed');
      return void render(req, res, binding, form, 401, 'That email and password do not match an active account.', email);
    }
    signIns.inc({ result: 'success' });
    await throttle.recordSuccess(email);
    await submission.onSuccess(user);
  }

  return {
    /** The form (GET, or again after a failed post). */
    render,
    submit,
    throttled,
    failed,
  };
}

export type SignIn = ReturnType<typeof createSignIn>;
