import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

/**
 * A Redis script read from a `.lua` file, the bullmq way:
 * - the file name carries the key count: `admit-7.lua` takes 7 keys; a name without `-N`
 *   (`refund.lua`) takes a variable number, passed as the command's first argument;
 * - a line `--- @include "token-bucket"` is replaced by that file's text (relative to the including
 *   file, `.lua` optional), each file at most once, so shared functions exist once and every script
 *   stays one atomic EVALSHA. Error line numbers in Redis count the included lines.
 */
export interface LuaScript {
  /** The file it came from (for errors). */
  readonly file: string;
  readonly lua: string;
  /** Keys the script takes; undefined: the first argument says. */
  readonly numberOfKeys: number | undefined;
}

export type ScriptArg = string | number;

const INCLUDE = /^[ \t]*---[ \t]*@include[ \t]+"([^"]+)"[ \t]*$/gm;
const KEY_COUNT = /-(\d+)\.lua$/;

/** Reads a script file and resolves its includes; read once, at module load, by its caller. */
export function loadLuaScript(file: URL | string): LuaScript {
  const path = typeof file === 'string' ? resolve(file) : fileURLToPath(file);
  if (!path.endsWith('.lua')) throw new Error(`Lua script ${path}: the file name must end in .lua`);
  const count = KEY_COUNT.exec(basename(path))?.[1];
  return { file: path, lua: withIncludes(path, [], new Set()), numberOfKeys: count === undefined ? undefined : Number(count) };
}

function withIncludes(path: string, stack: readonly string[], included: Set<string>): string {
  if (stack.includes(path)) {
    const cycle = [...stack.slice(stack.indexOf(path)), path].map((p) => basename(p)).join(' → ');
    throw new Error(`Lua include cycle: ${cycle}`);
  }
  included.add(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const from = stack.at(-1);
    throw new Error(from ? `Lua script ${from} includes ${path}, which cannot be read` : `Lua script ${path} cannot be read`, {
      cause: error,
    });
  }
  return text.replace(INCLUDE, (_line, name: string) => {
    const target = resolve(dirname(path), name.endsWith('.lua') ? name : `${name}.lua`);
    // A cycle is an error even when the file is already in; a diamond is included once.
    if (!stack.includes(target) && target !== path && included.has(target)) return '';
    return withIncludes(target, [...stack, path], included).replace(/\n$/, '');
  });
}

type Command<Reply> = (...args: ScriptArg[]) => Promise<Reply>;

/** Which script text each command name has on a connection, so one name never means two scripts. */
const defined = new WeakMap<Redis, Map<string, string>>();

/**
 * Registers a script on a connection once under `name` (ioredis then runs it by EVALSHA,
 * reloading it after NOSCRIPT) and returns it as a function: keys, then arguments (preceded by
 * the key count when the file name carries none). The same name with another script throws.
 */
export function scriptCommand<Reply>(redis: Redis, name: string, script: LuaScript): Command<Reply> {
  let names = defined.get(redis);
  if (!names) defined.set(redis, (names = new Map<string, string>()));
  const known = names.get(name);
  if (known === undefined) {
    redis.defineCommand(
      name,
      script.numberOfKeys === undefined ? { lua: script.lua } : { numberOfKeys: script.numberOfKeys, lua: script.lua },
    );
    names.set(name, script.lua);
  } else if (known !== script.lua) {
    throw new Error(`Redis command ${name} is already defined on this connection with another script (${script.file})`);
  }
  // defineCommand adds a method ioredis's types cannot know about; this is its one typed view.
  const command = (redis as unknown as Record<string, Command<Reply>>)[name]!;
  return (...args) => command.apply(redis, args);
}
