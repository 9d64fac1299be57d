import { z } from 'zod';

/**
 * What a secret key may reach: `search` (every read endpoint: search, detail, similar, suggest,
 * browse), `export` (the NDJSON export), `usage` (GET /v1/usage and /v1/usage/searches). A
 * publishable key has `search` only. GET /v1/me answers any secret key.
 */
export const KEY_SCOPES = ['search', 'export', 'usage'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const KeyScope = z.enum(KEY_SCOPES, { error: `must be one of ${KEY_SCOPES.join(', ')}` });

/** What a route requires of the key: a scope, `me` (any secret key) or `any` (any key, e.g. an unknown path's 404). */
export type RouteAccess = KeyScope | 'me' | 'any';

/** One DNS label: letters, digits and inner hyphens (what a `*` in an origin pattern stands for). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * An allowed page origin of a publishable key, as browsers send it in `Origin`: `http(s)://host[:port]`
 * with no path, or with one wildcard label in front (`https://*.shop.example` matches
 * `https://a.shop.example`, not `https://a.b.shop.example`, another scheme or another port).
 * Normalised as browsers serialise origins (lower case, default port dropped).
 */
export const OriginPattern = z.string().transform((raw, ctx) => {
  const wildcard = /^(https?):\/\/\*\.(.+)$/i.exec(raw.trim());
  const candidate = wildcard ? `${wildcard[1]}://wildcard.${wildcard[2]}` : raw.trim();
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${raw}" is not an origin such as https://shop.example or https://*.shop.example` });
    return z.NEVER;
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare) {
    ctx.addIssue({ code: 'custom', message: `"${raw}" must be http(s)://host[:port] with nothing after it` });
    return z.NEVER;
  }
  if (url.host.includes('*')) {
    ctx.addIssue({ code: 'custom', message: `"${raw}" may have * only as its first label (https://*.shop.example)` });
    return z.NEVER;
  }
  if (!wildcard) return url.origin;
  const rest = url.host.slice('wildcard.'.length);
  // `*.example` alone would admit every site under a public suffix: at least two labels after the `*`.
  if (!rest.includes('.') || url.hostname.split('.').some((label) => !LABEL.test(label))) {
    ctx.addIssue({ code: 'custom', message: `"${raw}" must put * in front of a domain of at least two labels (https://*.shop.example)` });
    return z.NEVER;
  }
  return `${url.protocol}//*.${rest}`;
});

/**
 * May a key reach what the route requires? The rule of admit-7.lua's access_allowed, for
 * decisions made without Redis (local-admission.ts). `scopes`: the record's space-separated
 * scopes (no field: all).
 */
export function accessAllowed(publishable: boolean, scopes: string | undefined, required: RouteAccess): boolean {
  if (required === 'any') return true;
  if (publishable) return required === 'search';
  // No field means every scope; an empty one (never written, but possible in a hand-edited
  // record) means none, as admit-7.lua reads it (restrictions-parity.test.ts).
  if (required === 'me' || scopes === undefined) return true;
  return scopes.split(' ').includes(required);
}

const ORIGIN_LABEL = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

/** Is the page origin one of the key's space-separated patterns? admit-7.lua's origin_allowed, for local decisions. */
export function originAllowed(patterns: string | undefined, origin: string): boolean {
  if (origin === '') return false;
  for (const pattern of (patterns ?? '').split(' ').filter(Boolean)) {
    if (pattern === origin) return true;
    const star = pattern.indexOf('://*.');
    if (star < 0) continue;
    const head = pattern.slice(0, star + 3);
    const tail = pattern.slice(star + 4);
    if (origin.length > head.length + tail.length && origin.startsWith(head) && origin.endsWith(tail)) {
      const label = origin.slice(head.length, origin.length - tail.length);
      if (ORIGIN_LABEL.test(label) && !label.endsWith('-')) return true;
    }
  }
  return false;
}
