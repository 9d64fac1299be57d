export { DEFAULT_SCRYPT, hashPassword, verifyPassword, type ScryptParams } from './password.ts';
export { RevocationStore, type RevocableClaims, type RevocationStoreOptions } from './revocation.ts';
export { LoginThrottle, type LoginThrottleOptions, type ThrottleDecision } from './throttle.ts';
export {
  IdentityError,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  normaliseEmail,
  UserStore,
  type User,
  type UserStoreOptions,
} from './users.ts';
export { generateSigningKey, KeyStore, type KeyStoreOptions, type SigningJwk } from './signing-keys.ts';
export { disableUser } from './disable.ts';
export { GrantStore, type ConnectedApp, type GrantStoreOptions } from './grants.ts';
