import { CLIENT_LIMITS } from './client-limits.ts';

/**
 * The redirect URI policy of this server (OAuth 2.1 §2.3.1, RFC 8252 §7, MCP 2025-11-25):
 * - https to any host;
 * - http only to a loopback host (127.0.0.1, [::1], localhost), any port: native apps;
 * - a private-use scheme (e.g. `com.example.app:/cb`) for native apps;
 * and never a fragment, user info, or a scheme that runs code or reads files.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
]);
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export type RedirectUriKind = 'https' | 'loopback' | 'private-use';

/** Classifies a redirect URI or returns the reason it is refused. */
export function classifyRedirectUri(value: unknown): { kind: RedirectUriKind } | { error: string } {
  if (typeof value !== 'string' || value.length === 0) return { error: 'must be a non-empty string' };
  if (value.length > CLIENT_LIMITS.uriLength) return { error: `is longer than ${CLIENT_LIMITS.uriLength} characters` };
  if (!SCHEME.test(value)) return { error: `${value} is not an absolute URI` };
  const url = URL.parse(value);
  if (!url) return { error: `${value} is not a valid URI` };
  if (value.includes('#')) return { error: `${value} must not contain a fragment` };
  if (url.username || url.password) return { error: `${value} must not contain user information` };
  if (url.protocol === 'https:') {
    if (!url.hostname) return { error: `${value} has no host` };
    return { kind: 'https' };
  }
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? { kind: 'loopback' }
      : {
          error: `${value}: http is only allowed for loopback hosts (127.0.0.1, [::1], localhost)`,
        };
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return { error: `${value} uses the forbidden scheme ${url.protocol.slice(0, -1)}` };
  return { kind: 'private-use' };
}

/**
 * Checks every redirect URI; returns the reasons for refusal (empty when all are fine) and
 * the application_type they imply when the client did not say: a client that can only be
 * reached on loopback or a private-use scheme is a native app (which also lets loopback
 * redirects use any port, RFC 8252 §7.3).
 */
export function checkRedirectUris(uris: readonly unknown[]): {
  errors: string[];
  impliedApplicationType: 'web' | 'native';
} {
  const errors: string[] = [];
  const kinds = new Set<RedirectUriKind>();
  for (const uri of uris) {
    const result = classifyRedirectUri(uri);
    if ('error' in result) errors.push(result.error);
    else kinds.add(result.kind);
  }
  const nativeOnly = kinds.has('private-use') || (kinds.size === 1 && kinds.has('loopback'));
  const impliedApplicationType = nativeOnly ? 'native' : 'web';
  return { errors, impliedApplicationType };
}
