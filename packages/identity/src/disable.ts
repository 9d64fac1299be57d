import type { RevocationStore } from './revocation.ts';
import type { User, UserStore } from './users.ts';

/**
 * Disables a user everywhere at once: sign-in and refresh are refused from now on (the
 * authorization server only finds enabled accounts), and the revocation record makes the MCP
 * server reject every access token of the user issued until now.
 */
export async function disableUser(users: UserStore, revocations: RevocationStore, email: string): Promise<User> {
  const user = await users.setDisabled(email, true);
  await revocations.revokeUser(user.id);
  return user;
}
