import type { CommandGroup } from '../command.ts';

/** Every command group of the operator CLI. Each group lives in its own file beside this one. */
export const groups: Record<string, CommandGroup> = {};
