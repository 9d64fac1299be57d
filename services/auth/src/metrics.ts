import type Provider from 'oidc-provider';
import { Counter } from '@fragrance/metrics';

/** The authorization server's own metrics (docs/observability.md): results, never clients or users. */
export const registrations = new Counter({
  name: 'auth_registrations_total',
  help: 'Dynamic client registrations by result (created, refused).',
  labelNames: ['result'] as const,
});
export const authorizations = new Counter({
  name: 'auth_authorizations_total',
  help: 'Authorization requests by result: success, or the OAuth error code returned.',
  labelNames: ['result'] as const,
});
export const tokensIssued = new Counter({
  name: 'auth_tokens_issued_total',
  help: 'Token endpoint successes by grant type.',
  labelNames: ['grant'] as const,
});
export const tokenErrors = new Counter({
  name: 'auth_token_errors_total',
  help: 'Token endpoint failures by grant type and OAuth error code.',
  labelNames: ['grant', 'error'] as const,
});
export const refreshTokenReuse = new Counter({
  name: 'auth_refresh_token_reuse_total',
  help: 'Refresh tokens presented after a successor was used (two generations old: the grant is revoked each time).',
});
export const signIns = new Counter({
  name: 'auth_sign_ins_total',
  help: 'Sign-in form submissions by result (success, failed, throttled).',
  labelNames: ['result'] as const,
});

/** OAuth error codes and grant types are short snake_case words; anything else is one bucket. */
const bounded = (value: unknown): string =>
  typeof value === 'string' && /^[a-z_:.-]{1,48}$/.test(value) && !value.includes('urn') ? value : 'other';

interface OidcContext {
  oidc?: { params?: { grant_type?: unknown } };
}
interface OidcError {
  error?: unknown;
  error_description?: unknown;
}

/** Counts what oidc-provider reports through its events. */
export function observeProvider(provider: Provider): void {
  provider.on('registration_create.success', () => registrations.inc({ result: 'created' }));
  provider.on('registration_create.error', () => registrations.inc({ result: 'refused' }));
  provider.on('authorization.success', () => authorizations.inc({ result: 'success' }));
  provider.on('authorization.error', (_ctx: unknown, error: OidcError) => authorizations.inc({ result: bounded(error.error) }));
  provider.on('grant.success', (ctx: OidcContext) => tokensIssued.inc({ grant: bounded(ctx.oidc?.params?.grant_type) }));
  provider.on('grant.error', (ctx: OidcContext, error: OidcError) => {
    const grant = bounded(ctx.oidc?.params?.grant_type);
    tokenErrors.inc({ grant, error: bounded(error.error) });
    // oidc-provider's words for a consumed refresh token: ours shows one so only when a successor was used.
    if (grant === 'refresh_token' && error.error_description === 'refresh token already used') refreshTokenReuse.inc();
  });
}
