import { AppError } from '@fragrance/http';

const REALM = 'Bearer realm="fragrance-catalogue"';

/** 401 `key_expired`: the key is past its expiry. */
export class KeyExpiredError extends AppError {
  constructor(expiredAt: number) {
    super(401, 'key_expired', 'Unauthorized', `The API key expired at ${new Date(expiredAt).toISOString()}; ask for a new key.`, {
      headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="key expired"` },
    });
  }
}

/** 401 `key_rolled`: a rolled key after its grace period; names its successor's prefix. */
export class KeyRolledError extends AppError {
  constructor(successorHint: string, retiredAt: number) {
    super(
      401,
      'key_rolled',
      'Unauthorized',
      `This API key was replaced by ${successorHint} and stopped working at ${new Date(retiredAt).toISOString()}; use its successor.`,
      { headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="key rolled"` } },
    );
  }
}

/** 403s of a valid key that may not make this request (nothing counted); the code names the reason. */
export class KeyForbiddenError extends AppError {
  constructor(code: 'endpoint_not_allowed' | 'origin_not_allowed' | 'secret_key_in_browser' | 'insufficient_scope', detail: string) {
    super(403, code, 'Forbidden', detail);
  }
}

/** What each 403 says, so a developer knows what to change. */
export const FORBIDDEN_DETAIL = {
  endpoint_not_allowed:
    'A publishable key reaches only the read endpoints a page needs (search, suggest, detail, similar, facets, browse lists); call this endpoint from your server with a secret key.',
  origin_not_allowed: (origin: string | undefined) =>
    origin
      ? `This publishable key is not allowed from the page origin ${origin}; ask the operator to add it to the key's origins.`
      : 'A publishable key must come from a web page: no Origin (nor Referer) was sent. Ask the operator for a secret key for server-side calls.',
  secret_key_in_browser: (origin: string) =>
    `A secret API key was sent from a web page (Origin ${origin}): it has leaked into a page and anyone can read it there. Roll it now (npm run ops -- keys roll <id>) and use a publishable key (fcs_pk_…) in pages. This request was not counted.`,
  insufficient_scope: (access: string) => `This secret key's scopes do not include ${access}; ask the operator for a key with that scope.`,
} as const;
