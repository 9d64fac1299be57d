import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * The text of a Redis script made of Lua files beside this module, read once at module load.
 * Scripts cannot include one another (EVAL has no require), so shared functions such as
 * token-bucket.lua are listed first and prepended; the result is still one script, run atomically.
 * A script's own error line numbers are therefore offset by the prepended lines.
 */
export function luaScript(...files: string[]): string {
  return files.map((file) => readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')).join('\n');
}

export type ScriptArg = string | number;

/**
 * Registers a script on a connection once (ioredis then runs it by EVALSHA, reloading it after
 * NOSCRIPT) and returns it as a function. Without `numberOfKeys` the first argument is the key count.
 */
export function scriptCommand<Reply>(
  redis: Redis,
  name: string,
  lua: string,
  numberOfKeys?: number,
): (...args: ScriptArg[]) => Promise<Reply> {
  // defineCommand adds a method ioredis's types cannot know about; this is its one typed view.
  const commands = redis as unknown as Record<string, ((...args: ScriptArg[]) => Promise<Reply>) | undefined>;
  if (!commands[name]) redis.defineCommand(name, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  const command = commands[name]!;
  return (...args) => command.apply(redis, args);
}
