import type { CommandGroup } from '../command.ts';
import { billingGroup } from './billing.ts';
import { catalogueGroup } from './catalogue.ts';
import { clientsGroup } from './clients.ts';
import { enrichGroup } from './enrich.ts';
import { keysGroup } from './keys.ts';
import { searchGroup } from './search.ts';
import { authGroup, usersGroup } from './users.ts';

/** Every command group of the operator CLI. Each group lives in its own file beside this one. */
export const groups: Record<string, CommandGroup> = {
  catalogue: catalogueGroup,
  enrich: enrichGroup,
  keys: keysGroup,
  billing: billingGroup,
  search: searchGroup,
  users: usersGroup,
  auth: authGroup,
  clients: clientsGroup,
};
