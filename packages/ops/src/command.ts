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

/**
 * A whole-number option (or argument) within bounds: undefined when not given, else the number or
 * a usage error naming it, e.g. `--keep must be a whole number from 0 to 10, got "x"`.
 */
export function wholeNumberOption(name: string, raw: string | undefined, min: number, max?: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= (max ?? Number.MAX_SAFE_INTEGER)))
    throw new UsageError(
      `${name} must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}, got "${raw}"`,
    );
  return value;
}
