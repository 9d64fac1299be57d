import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Thrown for bad CLI usage: printed without a stack, exit code 2. */
export class UsageError extends Error {
  readonly code = 'usage';
}

export interface CommandContext {
  /** Arguments after `<group> <command>`. */
  argv: string[];
  /** The environment, read only through each command's own config schema. */
  env: Readonly<Record<string, string | undefined>>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

export interface Command {
  summary: string;
  usage: string;
  run: (ctx: CommandContext) => Promise<void>;
}

/** A group of commands, e.g. `keys` → create, list, revoke. */
export interface CommandGroup {
  summary: string;
  commands: Record<string, Command>;
}

/** node:util parseArgs, with usage errors turned into UsageError. */
export function parseOptions<T extends ParseArgsConfig['options']>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
