import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

const COOKIE = 'fcs_csrf';

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/**
 * Double-submit CSRF protection for the sign-in and consent forms: a random cookie plus a form
 * field that is an HMAC of that cookie and the interaction uid, so a token can neither be
 * forged without our secret nor carried over to another interaction.
 */
export function createCsrf(secret: string, secure: boolean) {
  const sign = (uid: string, nonce: string) => createHmac('sha256', secret).update(`${uid}.${nonce}`).digest('base64url');
  return {
    /** The token for a form, setting the cookie when the browser has none yet. */
    issue(req: Request, res: Response, uid: string): string {
      let nonce = readCookie(req, COOKIE);
      if (!nonce || !/^[\w-]{20,100}$/.test(nonce)) {
        nonce = randomBytes(24).toString('base64url');
        res.cookie(COOKIE, nonce, {
          httpOnly: true,
          sameSite: 'lax',
          secure,
          path: '/oauth/interaction',
        });
      }
      return sign(uid, nonce);
    },
    verify(req: Request, uid: string): boolean {
      // A cross-site form post is refused outright where the browser says so.
      if (req.headers['sec-fetch-site'] === 'cross-site') return false;
      const nonce = readCookie(req, COOKIE);
      const token = (req.body as Record<string, unknown> | undefined)?.csrf;
      if (!nonce || typeof token !== 'string') return false;
      const expected = Buffer.from(sign(uid, nonce));
      const actual = Buffer.from(token);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}
