import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { loadLuaScript, scriptCommand } from './scripts.ts';

let dir: string;
let t: TestRedis;

/** Writes Lua files into the test's directory and returns the path of the first. */
function lua(files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return join(dir, Object.keys(files)[0]!);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lua-scripts-'));
  t = await testRedis('redis-scripts');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.cleanup();
});

describe('loadLuaScript', () => {
  it('takes the key count from the file name, or none when the name carries no -N', () => {
    expect(loadLuaScript(lua({ 'pair-2.lua': 'return 1\n' })).numberOfKeys).toBe(2);
    expect(loadLuaScript(lua({ 'some-thing-10.lua': 'return 1\n' })).numberOfKeys).toBe(10);
    expect(loadLuaScript(lua({ 'variable.lua': 'return 1\n' })).numberOfKeys).toBeUndefined();
  });

  it('replaces include lines with the included files, nested, each file once', () => {
    const path = lua({
      'main-1.lua': '--- @include "lib/a"\n--- @include "lib/b.lua"\nreturn a() + b()\n',
      'lib/a.lua': '--- @include "shared"\nlocal function a() return shared() end\n',
      'lib/b.lua': '--- @include "shared"\nlocal function b() return shared() * 10 end\n',
      'lib/shared.lua': 'local function shared() return 1 end\n',
    });
    const { lua: text } = loadLuaScript(new URL(`file://${path}`));
    expect(text).toBe(
      [
        'local function shared() return 1 end',
        'local function a() return shared() end',
        '',
        'local function b() return shared() * 10 end',
        'return a() + b()',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('@include');
  });

  it('refuses an include cycle, naming it', () => {
    const path = lua({ 'loop-1.lua': '--- @include "x"\nreturn 1\n', 'x.lua': '--- @include "y"\n', 'y.lua': '--- @include "x"\n' });
    expect(() => loadLuaScript(path)).toThrow('Lua include cycle: x.lua → y.lua → x.lua');
    expect(() => loadLuaScript(lua({ 'self.lua': '--- @include "self"\n' }))).toThrow('Lua include cycle: self.lua → self.lua');
  });

  it('refuses a missing include, naming the file that includes it', () => {
    const path = lua({ 'missing-1.lua': '--- @include "nowhere"\nreturn 1\n' });
    expect(() => loadLuaScript(path)).toThrow(/missing-1\.lua includes .*nowhere\.lua, which cannot be read/);
  });
});

describe('scriptCommand', () => {
  it('runs a script on Redis with its included functions and the key count of its name', async () => {
    const path = lua({
      'add-2.lua': '--- @include "incr-by"\nreturn {incr_by(KEYS[1], ARGV[1]), incr_by(KEYS[2], ARGV[1] * 2)}\n',
      'incr-by.lua': "local function incr_by(key, n) return redis.call('INCRBY', key, n) end\n",
    });
    const add = scriptCommand<[number, number]>(t.redis, 'testAddTwo', loadLuaScript(path));
    expect(await add(`${t.prefix}a`, `${t.prefix}b`, 3)).toEqual([3, 6]);
    expect(await add(`${t.prefix}a`, `${t.prefix}b`, 1)).toEqual([4, 8]);
  });

  it('passes the key count first when the name carries none', async () => {
    const keys = scriptCommand<number>(t.redis, 'testCountKeys', loadLuaScript(lua({ 'count-keys.lua': 'return #KEYS * 100 + #ARGV\n' })));
    expect(await keys(2, `${t.prefix}x`, `${t.prefix}y`, 'arg')).toBe(201);
    expect(await keys(0, 'a', 'b')).toBe(2);
  });

  it('registers a name once per connection, and refuses another script under the same name', async () => {
    const script = loadLuaScript(lua({ 'one-0.lua': 'return 1\n' }));
    const first = scriptCommand<number>(t.redis, 'testOnce', script);
    const again = scriptCommand<number>(t.redis, 'testOnce', script);
    expect([await first(), await again()]).toEqual([1, 1]);
    expect(() => scriptCommand(t.redis, 'testOnce', loadLuaScript(lua({ 'two-0.lua': 'return 2\n' })))).toThrow(/already defined/);
  });
});
