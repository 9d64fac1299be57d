// The OAuth client side of an MCP host, for the end-to-end tests and the smoke script: the SDK's
// OAuthClientProvider keeping its registration, tokens and PKCE verifier in memory.
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthTokens } from '@modelcontextprotocol/client';

/** An in-memory OAuthClientProvider, as an MCP host would keep it. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly #redirect: string;
  constructor(redirect: string) {
    this.#redirect = redirect;
  }
  client?: OAuthClientInformationMixed;
  saved: OAuthTokens[] = [];
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.#redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
