export type { ScryptParams } from './password.ts';
export { RevocationStore, revokedBy, type RevocableClaims, type RevocationSnapshot } from './revocation.ts';
export { LoginThrottle } from './throttle.ts';
export { IdentityError, MIN_PASSWORD_LENGTH, UserStore, type User } from './users.ts';
export { KeyStore, type SigningJwk } from './signing-keys.ts';
export { disableUser } from './disable.ts';
export { GrantStore } from './grants.ts';
export {
  hashClientSecret,
  MACHINE_CLIENT_ID,
  MachineClientError,
  MachineClientStore,
  type MachineAdmission,
  type MachineClient,
} from './machine-clients.ts';
