import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { accessAllowed, originAllowed, type RouteAccess } from './restrictions.ts';

// Local admission (no Redis) decides with restrictions.ts; Redis decides with admit-7.lua. The two
// must agree on every key, route and origin, or a key would reach more (or less) while Redis is
// away. These cases run through both: the Lua functions as they stand in admit-7.lua, in real Redis.
const ADMIT = readFileSync(new URL('./admit-7.lua', import.meta.url), 'utf8');

/** admit-7.lua's origin_allowed and access_allowed, cut from the script by their definitions. */
function luaRules(): string {
  const start = ADMIT.indexOf('local function origin_allowed(');
  const end = ADMIT.indexOf('local function decide(');
  if (start < 0 || end < start || !ADMIT.slice(start, end).includes('local function access_allowed('))
    throw new Error('admit-7.lua no longer defines origin_allowed and access_allowed before decide(): update this test');
  return ADMIT.slice(start, end);
}

// Each case is one line of ARGV: the rule, then its inputs; `\0` stands for "no field" (nil).
const DRIVER = `${luaRules()}
local out = {}
local nilable = function(v) if v == '\\0' then return nil end return v end
for i = 1, #ARGV, 4 do
  local ok
  if ARGV[i] == 'access' then
    ok = access_allowed(ARGV[i + 1] == '1', nilable(ARGV[i + 2]), ARGV[i + 3])
  else
    ok = origin_allowed(nilable(ARGV[i + 1]), ARGV[i + 2])
  end
  out[#out + 1] = ok and 1 or 0
end
return out`;

type Case =
  | { rule: 'access'; publishable: boolean; scopes: string | undefined; required: RouteAccess }
  | { rule: 'origin'; patterns: string | undefined; origin: string };

const ts = (c: Case) => (c.rule === 'access' ? accessAllowed(c.publishable, c.scopes, c.required) : originAllowed(c.patterns, c.origin));
const argv = (c: Case) =>
  c.rule === 'access' ? ['access', c.publishable ? '1' : '0', c.scopes ?? '\0', c.required] : ['origin', c.patterns ?? '\0', c.origin, ''];

const REQUIRED: RouteAccess[] = ['search', 'export', 'usage', 'me', 'any'];
const SCOPES = [undefined, '', 'search', 'search usage', 'export', 'search export usage', 'usage  export', 'searches', 'sear'];
const PATTERNS = [
  undefined,
  '',
  'https://shop.example',
  'https://*.shop.example',
  'https://*.shop.example http://localhost:3000',
  'http://*.shop.example:8443',
  'https://*.',
  'https://*.example',
];
const ORIGINS = [
  '',
  'https://shop.example',
  'https://a.shop.example',
  'https://A-1.shop.example',
  'https://a-.shop.example',
  'https://-a.shop.example',
  'https://a.b.shop.example',
  'https://.shop.example',
  'http://a.shop.example',
  'http://a.shop.example:8443',
  'https://a.shop.example:8443',
  'http://localhost:3000',
  'http://localhost:30000',
  'https://xshop.example',
  'https://a_b.shop.example',
  'https://abc',
  'https://é.shop.example',
];

/** Random patterns and origins from a few parts, many of them near misses of each other. */
function seededCases(count: number, seed: number): { patterns: string; origin: string }[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  const pick = <T>(list: readonly T[]) => list[next(list.length)]!;
  const schemes = ['https://', 'http://'];
  const labels = ['a', 'shop', 'b-2', 'x-', '-y', 'Z', '9', 'a.b', ''];
  const domains = ['shop.example', 'example', 'shop.example:8443', 'sub.shop.example'];
  const origin = () => `${pick(schemes)}${pick(labels)}${next(2) ? '.' : ''}${pick(domains)}`;
  const pattern = () => (next(2) ? `${pick(schemes)}*.${pick(domains)}` : origin());
  return Array.from({ length: count }, () => ({
    patterns: Array.from({ length: 1 + next(3) }, pattern).join(' '),
    origin: origin(),
  }));
}

const table: Case[] = [
  ...[true, false].flatMap((publishable) =>
    SCOPES.flatMap((scopes) => REQUIRED.map((required): Case => ({ rule: 'access', publishable, scopes, required }))),
  ),
  ...PATTERNS.flatMap((patterns) => ORIGINS.map((origin): Case => ({ rule: 'origin', patterns, origin }))),
  ...seededCases(400, 37).map((c): Case => ({ rule: 'origin', ...c })),
];

describe('restrictions.ts and admit-7.lua decide alike', () => {
  let store: TestRedis;
  beforeAll(async () => {
    store = await testRedis('restrictions-parity');
  });
  afterAll(() => store.cleanup());

  it(`on ${table.length} keys, routes and origins`, async () => {
    const lua = (await store.redis.eval(DRIVER, 0, ...table.flatMap(argv))) as number[];
    const disagreements = table.flatMap((c, i) => (Boolean(lua[i]) === ts(c) ? [] : [{ ...c, lua: Boolean(lua[i]), ts: ts(c) }]));
    expect(disagreements).toEqual([]);
    // Both outcomes occur for each rule: a table that always said yes (or no) would prove nothing.
    for (const rule of ['access', 'origin'] as const) {
      const outcomes = new Set(table.filter((c) => c.rule === rule).map(ts));
      expect(outcomes).toEqual(new Set([true, false]));
    }
  });
});
