import { timingSafeEqual } from 'node:crypto';
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { hashClientSecret, MACHINE_CLIENT_ID } from '@fragrance/identity';
import { checkClientLimits } from './client-limits.ts';
import { checkRedirectUris } from './redirect-uris.ts';

const MACHINE_AUTH_METHODS = new Set(['private_key_jwt', 'client_secret_basic', 'client_secret_post']);

type Metadata = Record<string, unknown>;

/**
 * `fcs_machine` marks a client an operator registered (`ops clients create --machine`): never
 * accepted from a registration or a metadata document, and only on our machine client ids.
 */
function checkMachineMarker(ctx: KoaContextWithOIDC | undefined, value: unknown, metadata: Metadata): void {
  if (value === undefined) return;
  const route = ctx?.oidc?.route;
  if (value !== true || route === 'registration' || !MACHINE_CLIENT_ID.test(String(metadata.client_id))) {
    throw new errors.InvalidClientMetadata('fcs_machine is set by operators only (ops clients create --machine)');
  }
}

/** A machine client: the client_credentials grant only, authenticated with a key or a (hashed) secret. */
function checkMachineClient(metadata: Metadata): void {
  const grants = metadata.grant_types;
  if (!Array.isArray(grants) || grants.length !== 1 || grants[0] !== 'client_credentials') {
    throw new errors.InvalidClientMetadata('a machine client has the client_credentials grant only');
  }
  if (!MACHINE_AUTH_METHODS.has(String(metadata.token_endpoint_auth_method))) {
    throw new errors.InvalidClientMetadata('a machine client authenticates with private_key_jwt or a client secret');
  }
}

/**
 * A client of a person: public only, the code flow, loopback/https/private-use redirects.
 * Said here, naming what is allowed, because oidc-provider's own refusal of some methods
 * (private_key_jwt: "jwks or jwks_uri is mandatory") does not.
 */
function checkPublicClient(metadata: Metadata): void {
  const method = metadata.token_endpoint_auth_method;
  if (typeof method === 'string' && method !== 'none') {
    throw new errors.InvalidClientMetadata(`token_endpoint_auth_method must be "none" (public clients only), not "${method}"`);
  }
  if (Array.isArray(metadata.grant_types) && metadata.grant_types.includes('client_credentials')) {
    throw new errors.InvalidClientMetadata('grant_types: client_credentials is for machine clients an operator registers');
  }
  // oidc-provider decides whether to mint a secret from the raw registration body, before
  // clientDefaults make the client public; a public client must not receive one.
  if (method === 'none') {
    delete metadata.client_secret;
    delete metadata.client_secret_expires_at;
  }
  const uris = metadata.redirect_uris;
  if (uris === undefined) return; // oidc-provider reports the missing member itself
  if (!Array.isArray(uris) || uris.length === 0) throw new errors.InvalidClientMetadata('redirect_uris must be a non-empty array');
  const { errors: problems, impliedApplicationType } = checkRedirectUris(uris);
  if (problems.length > 0) throw new errors.InvalidClientMetadata(`redirect_uris: ${problems.join('; ')}`);
  metadata.application_type = impliedApplicationType;
}

/** Machine client secrets are stored as `sha256:<hex>` (hashClientSecret); the presented one is hashed and compared. */
export function compareHashedSecret(this: { clientSecret?: string }, actual: string): boolean {
  const stored = Buffer.from(this.clientSecret ?? '');
  const presented = Buffer.from(hashClientSecret(actual));
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

/**
 * Every client (registered, loaded or fetched as a metadata document) passes here before
 * oidc-provider's own checks: declaring any extra property makes oidc-provider call the
 * validator for each. Size limits for all; then a machine client's rules or a person's client's.
 */
export const CLIENT_METADATA_POLICY: NonNullable<Configuration['extraClientMetadata']> = {
  properties: ['software_id', 'software_version', 'fcs_machine'],
  validator(ctx, key, value, metadata) {
    if (key === 'fcs_machine') return void checkMachineMarker(ctx, value, metadata);
    if (value !== undefined && typeof value !== 'string') {
      throw new errors.InvalidClientMetadata(`${key} must be a string`);
    }
    if (key !== 'software_id') return;
    // InvalidClientMetadata answers invalid_redirect_uri when the description starts with
    // "redirect_uris", keeping the description (InvalidRedirectUri would replace it).
    const tooLarge = checkClientLimits(metadata);
    if (tooLarge) throw new errors.InvalidClientMetadata(tooLarge);
    if (metadata.fcs_machine === true) return void checkMachineClient(metadata);
    checkPublicClient(metadata);
  },
};
