/**
 * Size limits on client metadata. Registration is open to anyone and every client is stored
 * (and shown on the consent page), so each member is bounded; the same limits apply to Client ID
 * Metadata Documents and to clients loaded from storage. Documented in docs/oauth.md.
 */
export const CLIENT_LIMITS = {
  /** Largest registration request body (the gateway allows 1 MiB, oidc-provider 56 KiB). */
  registrationBodyBytes: 16 * 1024,
  /** Most entries in any list member (redirect_uris, contacts, post_logout_redirect_uris, …). */
  listEntries: 10,
  /** Longest URI: client_id, redirect_uris, post_logout_redirect_uris and every `*_uri` member. */
  uriLength: 2000,
  /** Longest other string: client_name, software_id, software_version, scope, contacts, … */
  stringLength: 200,
} as const;

const isUriMember = (name: string) => name === 'client_id' || name.endsWith('_uri') || name.endsWith('_uris');

const tooLong = (name: string, value: string, limit: number) => `${name} is ${value.length} characters long; at most ${limit} are allowed`;

/**
 * Why `metadata` is beyond CLIENT_LIMITS (its first such member, named first in the sentence),
 * or undefined. Only sizes are judged here: members of the wrong type are left to
 * oidc-provider's own checks.
 */
export function checkClientLimits(metadata: Readonly<Record<string, unknown>>): string | undefined {
  for (const [name, value] of Object.entries(metadata)) {
    const limit = isUriMember(name) ? CLIENT_LIMITS.uriLength : CLIENT_LIMITS.stringLength;
    if (typeof value === 'string' && value.length > limit) return tooLong(name, value, limit);
    if (!Array.isArray(value)) continue;
    const entries = value as unknown[];
    if (entries.length > CLIENT_LIMITS.listEntries) {
      return `${name} may list at most ${CLIENT_LIMITS.listEntries} entries (got ${entries.length})`;
    }
    for (const [index, entry] of entries.entries()) {
      if (typeof entry === 'string' && entry.length > limit) return tooLong(`${name}[${index}]`, entry, limit);
    }
  }
  return undefined;
}
