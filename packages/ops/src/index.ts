export { parseOptions, UsageError, type Command, type CommandContext, type CommandGroup } from './command.ts';
