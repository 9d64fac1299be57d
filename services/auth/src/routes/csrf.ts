import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { Request, Response } from 'express';

const COOKIE = 'fcs_csrf';
/** The shape of the nonces we issue (24 random bytes, base64url); anything else is not ours. */
const NONCE = /^[\w-]{20,100}$/;

/**
 * Our CSRF nonce from the Cookie header, or undefined when there is none or it is not one we
 * could have issued. The `cookie` package never throws on a malformed value (it keeps the raw
 * text when percent-decoding fails) and, of repeated names, keeps the first: the one with the
 * most specific path (RFC 6265 §5.4).
 */
function nonceOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  const value = header ? parseCookie(header)[COOKIE] : undefined;
  return value !== undefined && NONCE.test(value) ? value : undefined;
}

/**
 * Double-submit CSRF protection for the sign-in and consent forms: a random cookie plus a form
 * field that is an HMAC of that cookie and the interaction uid (or, on the account page, the
 * session), so a token can neither be forged without our secret nor carried over to another
 * interaction. The cookie is scoped to the pages that post (`cookiePath`).
 */
export function createCsrf(secret: string, secure: boolean, cookiePath = '/oauth/interaction') {
  const sign = (uid: string, nonce: string) => createHmac('sha256', secret).update(`${uid}.${nonce}`).digest('base64url');
  return {
    /** The token for a form, setting the cookie when the browser has none yet. */
    issue(req: Request, res: Response, uid: string): string {
      let nonce = nonceOf(req);
      if (!nonce) {
        nonce = randomBytes(24).toString('base64url');
        res.cookie(COOKIE, nonce, {
          httpOnly: true,
          sameSite: 'lax',
          secure,
          path: cookiePath,
        });
      }
      return sign(uid, nonce);
    },
    verify(req: Request, uid: string): boolean {
      // A cross-site form post is refused outright where the browser says so.
      if (req.headers['sec-fetch-site'] === 'cross-site') return false;
      // A missing or malformed cookie is a failed check like a wrong token.
      const nonce = nonceOf(req);
      const token = (req.body as Record<string, unknown> | undefined)?.csrf;
      if (!nonce || typeof token !== 'string') return false;
      const expected = Buffer.from(sign(uid, nonce));
      const actual = Buffer.from(token);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}
