// Generated requests: valid ones built from the document's parameter schemas (plus the contract's
// cross-parameter rules), and mutated ones that a hostile or careless client would send.
import fc from 'fast-check';
import { DEFAULT_LIMIT, MAX_RESULT_WINDOW } from '@fragrance/contracts';
import type { ApiModel, Operation, Parameter } from './model.ts';

/**
 * What the answer must be: `success` a 2xx whose body matches the document; `reject` a documented
 * 4xx problem; `either` one or the other (a hostile string may well be a fine search).
 */
export type Expectation = 'success' | 'reject' | 'either';

export interface FuzzCase {
  /** `valid` or the mutation applied, e.g. `unknown_param`. */
  kind: string;
  expect: Expectation;
  /** The operation the path belongs to; undefined for paths outside the document. */
  operation: Operation | undefined;
  /** Path and query exactly as sent (already percent-encoded). */
  target: string;
  headers: Record<string, string>;
}

export interface FuzzContext {
  model: ApiModel;
  apiKey: string;
  knownIds: readonly string[];
  /** Real values per parameter name (brands, notes...), so valid searches also find things. */
  vocabulary: Readonly<Record<string, readonly string[]>>;
  /** A real next_cursor and the query string of the page it came from. */
  cursor: { query: string; value: string };
}

const HOSTILE = [
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '{"match_all":{}}',
  '*',
  '?',
  '\\',
  'a\u0000b',
  '\u202Eevil',
  '🌹🌹🌹',
  'ǅ̶̡̛',
  '%',
  '%zz',
  '%C3%28',
  'a'.repeat(1_000),
  '../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  '-0',
  '  ',
];
const SUSPICIOUS_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'q', 'sort', 'page'];
const RESERVED_PARAMS = new Set(['cursor']);

const encode = (value: string) => encodeURIComponent(value);
const queryOf = (pairs: readonly (readonly [string, string])[]) =>
  pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&')}`;

/** A value the document says is valid for `param`. */
function validValue(param: Parameter, context: FuzzContext): fc.Arbitrary<string> {
  const { schema } = param;
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? min + 1_000;
    return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max)).map(String);
  }
  if (schema.type === 'boolean') return fc.constantFrom('true', 'false');
  // A comma-separated list (style form, explode false): 1..maxItems items.
  const itemSchema = schema.type === 'array' ? (schema.items ?? {}) : schema;
  const maxItems = schema.type === 'array' ? Math.min(schema.maxItems ?? 3, 3) : 1;
  if (itemSchema.enum && itemSchema.enum.length > 0) {
    return fc.uniqueArray(fc.constantFrom(...itemSchema.enum), { minLength: 1, maxLength: maxItems }).map((items) => items.join(','));
  }
  const words = context.vocabulary[param.name];
  if (words && words.length > 0) {
    return fc.uniqueArray(fc.constantFrom(...words), { minLength: 1, maxLength: maxItems }).map((items) => items.join(','));
  }
  if (schema.type === 'array') {
    const item = fc.stringMatching(/^[a-z]{1,20}$/);
    return fc.uniqueArray(item, { minLength: 1, maxLength: maxItems }).map((items) => items.join(','));
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  return fc.string({ minLength: Math.max(1, schema.minLength ?? 1), maxLength }).filter((s) => s.trim().length > 0);
}

/** The contract's cross-parameter rules (zod refinements) that a schema cannot express. */
function respectRefinements(pairs: [string, string][]): [string, string][] {
  const get = (name: string) => pairs.find(([key]) => key === name)?.[1];
  const from = Number(get('year_from'));
  const to = Number(get('year_to'));
  let out = pairs;
  if (Number.isFinite(from) && Number.isFinite(to) && from > to) {
    out = out.map(([key, value]) => [key, key === 'year_from' ? String(to) : key === 'year_to' ? String(from) : value]);
  }
  const limit = Number(get('limit') ?? DEFAULT_LIMIT);
  const offset = Number(get('offset') ?? 0);
  if (offset + limit > MAX_RESULT_WINDOW)
    out = out.map(([key, value]) => [key, key === 'offset' ? String(MAX_RESULT_WINDOW - limit) : value]);
  return out;
}

const pathParams = (operation: Operation) => operation.parameters.filter((p) => p.in === 'path');
const queryParams = (operation: Operation) => operation.parameters.filter((p) => p.in === 'query' && !RESERVED_PARAMS.has(p.name));

/**
 * The path with its parameters filled: `{id}` with the given id, any other (`{slug}`) with a real
 * value of that name from the vocabulary, chosen by the id so cases stay reproducible.
 */
function fillPath(operation: Operation, basePath: string, id: string, vocabulary: FuzzContext['vocabulary'] = {}): string {
  return `${basePath}${operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const values = vocabulary[name];
    if (name === 'id' || !values?.length) return encode(id);
    let pick = 0;
    for (let i = 0; i < id.length; i += 1) pick = (pick + id.charCodeAt(i)) % values.length;
    return encode(values[pick] ?? id);
  })}`;
}

/** A valid request to `operation`: some of its query parameters, each with a valid value. */
function validPairs(operation: Operation, context: FuzzContext): fc.Arbitrary<[string, string][]> {
  const params = queryParams(operation);
  if (params.length === 0) return fc.constant([]);
  const required = params.filter((p) => p.required);
  const optional = params.filter((p) => !p.required);
  return fc
    .subarray(optional, { maxLength: Math.min(5, optional.length) })
    .map((chosen) => [...required, ...chosen])
    .chain((chosen) => fc.tuple(...chosen.map((p) => validValue(p, context).map((value): [string, string] => [p.name, value]))))
    .map((pairs) => respectRefinements(pairs));
}

function headersFor(operation: Operation | undefined, context: FuzzContext): Record<string, string> {
  return operation?.needsKey === false ? {} : { authorization: `Bearer ${context.apiKey}` };
}

function validCase(operation: Operation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const id = context.knownIds.length > 0 ? fc.constantFrom(...context.knownIds) : fc.uuid();
  return fc.tuple(id, validPairs(operation, context)).map(([anId, pairs]) => ({
    kind: 'valid',
    expect: 'success' as const,
    operation,
    target: `${fillPath(operation, context.model.basePath, anId, context.vocabulary)}${queryOf(pairs)}`,
    headers: headersFor(operation, context),
  }));
}

/** What every mutation of one operation's valid requests shares. */
interface Mutating {
  operation: Operation;
  context: FuzzContext;
  knownId: fc.Arbitrary<string>;
  /** A known id and valid query pairs: the valid request each mutation starts from. */
  base: fc.Arbitrary<[string, [string, string][]]>;
  make: (kind: string, expect: Expectation, target: string, headers?: Record<string, string>) => FuzzCase;
  /** The path (with `id`) and the query of `pairs`. */
  target: (id: string, pairs: [string, string][]) => string;
}

/** Odd but harmless headers on a valid request. */
function headerMutations({ operation, context, base, make, target }: Mutating): fc.Arbitrary<FuzzCase>[] {
  return [
    fc
      .tuple(
        base,
        fc.constantFrom(
          ['x-request-id', `fcs_${'Ab3'.repeat(15)}`],
          ['x-request-id', 'a'.repeat(300)],
          ['accept', 'application/xml'],
          ['if-none-match', '"garbage", W/"x"'],
          ['x-forwarded-host', 'evil.example'],
          ['accept-encoding', 'br;q=2, *;q=-1'],
        ),
      )
      .map(([[id, pairs], [name, value]]) =>
        make('odd_header', 'either', target(id, pairs), { ...headersFor(operation, context), [name]: value }),
      ),
  ];
}

/**
 * Only keyed routes refuse unknown parameters (the document is a static file, and a query string
 * on it, cache busting, is ignored like on any static file); and only they check credentials.
 */
function keyedMutations({ operation, context, knownId, base, make, target }: Mutating): fc.Arbitrary<FuzzCase>[] {
  if (!operation.needsKey) return [];
  const { basePath } = context.model;
  return [
    fc
      .tuple(base, fc.oneof(fc.constantFrom(...SUSPICIOUS_NAMES), fc.stringMatching(/^[a-z_]{1,12}$/)))
      .filter(([, name]) => !operation.parameters.some((p) => p.name === name))
      .map(([[id, pairs], name]) => make('unknown_param', 'reject', target(id, [...pairs, [name, '1']]))),
    fc
      .tuple(knownId, fc.constantFrom('Bearer', 'Basic dXNlcjpwYXNz', 'Bearer fcs_', `Bearer ${context.apiKey}x`, 'bearer', ''))
      .map(([id, authorization]) =>
        make('bad_credentials', 'reject', fillPath(operation, basePath, id, context.vocabulary), authorization ? { authorization } : {}),
      ),
  ];
}

/** A parameter repeated, given a hostile string, or badly percent-encoded. */
function paramMutations({ operation, context, base, make, target }: Mutating): fc.Arbitrary<FuzzCase>[] {
  const params = queryParams(operation);
  if (params.length === 0) return [];
  const param = fc.constantFrom(...params);
  const { basePath } = context.model;
  return [
    fc
      .tuple(base, param)
      .chain(([b, p]) => validValue(p, context).map((value) => [b, p, value] as const))
      .map(([[id, pairs], p, value]) => make('repeated_param', 'reject', target(id, [...pairs, [p.name, value], [p.name, value]]))),
    fc
      .tuple(base, param, fc.constantFrom(...HOSTILE))
      .map(([[id, pairs], p, value]) =>
        make('hostile_string', 'either', target(id, [...pairs.filter(([k]) => k !== p.name), [p.name, value]])),
      ),
    fc
      .tuple(base, param, fc.constantFrom('%zz', '%C3%28', '%', '%00', '%E0%A4%A'))
      .map(([[id, pairs], p, raw]) =>
        make(
          'bad_encoding',
          'either',
          `${fillPath(operation, basePath, id, context.vocabulary)}${queryOf(pairs.filter(([k]) => k !== p.name))}${pairs.length > 0 ? '&' : '?'}${p.name}=${raw}`,
        ),
      ),
  ];
}

/** A value of the wrong type for a typed parameter (enum, integer, number, boolean). */
function wrongTypeMutations({ operation, base, make, target }: Mutating): fc.Arbitrary<FuzzCase>[] {
  const typed = queryParams(operation).filter(
    (p) => p.schema.enum !== undefined || p.schema.type === 'integer' || p.schema.type === 'number' || p.schema.type === 'boolean',
  );
  if (typed.length === 0) return [];
  return [
    fc
      .tuple(
        base,
        fc.constantFrom(...typed),
        fc.constantFrom('abc', '1.5', '1e3', '0x10', '', ' 1', '١٢', '9999999999', 'true1', 'zzz-not-a-value'),
      )
      // A number parameter (rating_min) takes decimals: 1.5 is a valid value there.
      .filter(([, p, value]) => !(p.schema.type === 'number' && value === '1.5'))
      .map(([[id, pairs], p, value]) =>
        make('wrong_type', 'reject', target(id, [...pairs.filter(([k]) => k !== p.name), [p.name, value]])),
      ),
  ];
}

/** A value just past a bounded parameter's minimum, maximum or maximum length. */
function outOfRangeMutations({ operation, base, make, target }: Mutating): fc.Arbitrary<FuzzCase>[] {
  const bounded = queryParams(operation).filter(
    (p) => p.schema.minimum !== undefined || p.schema.maximum !== undefined || p.schema.maxLength !== undefined,
  );
  if (bounded.length === 0) return [];
  return [
    fc.tuple(base, fc.constantFrom(...bounded), fc.integer({ min: 1, max: 1_000_000 })).map(([[id, pairs], p, by]) => {
      const { minimum, maximum, maxLength } = p.schema;
      const value =
        maxLength !== undefined && p.schema.type !== 'integer'
          ? 'x'.repeat(maxLength + 1)
          : maximum !== undefined && (by % 2 === 0 || minimum === undefined)
            ? String(maximum + by)
            : String((minimum ?? 0) - by);
      return make('out_of_range', 'reject', target(id, [...pairs.filter(([k]) => k !== p.name), [p.name, value]]));
    }),
  ];
}

/** A tampered cursor, and unknown or malformed path ids. */
function cursorAndIdMutations({ operation, context, make }: Mutating): fc.Arbitrary<FuzzCase>[] {
  const { basePath } = context.model;
  const mutations: fc.Arbitrary<FuzzCase>[] = [];
  if (operation.parameters.some((p) => p.name === 'cursor')) {
    mutations.push(
      fc
        .constantFrom(...tamperedCursors(context.cursor.value))
        .map((cursor) =>
          make('tampered_cursor', 'reject', `${basePath}${operation.path}?${context.cursor.query}&cursor=${encode(cursor)}`),
        ),
    );
  }
  if (pathParams(operation).length > 0) {
    mutations.push(
      fc.uuid().map((id) => make('unknown_id', 'reject', fillPath(operation, basePath, id))),
      fc
        .constantFrom(
          'abc',
          '%2e%2e',
          '..%2f..%2fhealth',
          '%2F',
          '%5c',
          'x'.repeat(2_000),
          '%00',
          "1'%20OR%201=1",
          '%E0%A4%A',
          '%7Bid%7D',
          '%20',
        )
        .map((raw) => make('bad_id', 'reject', `${basePath}${operation.path.replace(/\{\w+\}/g, raw)}`)),
    );
  }
  return mutations;
}

/** One mutation of a valid request to `operation`. */
function mutatedCase(operation: Operation, context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const knownId = context.knownIds.length > 0 ? fc.constantFrom(...context.knownIds) : fc.uuid();
  const mutating: Mutating = {
    operation,
    context,
    knownId,
    base: fc.tuple(knownId, validPairs(operation, context)),
    make: (kind, expect, target, headers = headersFor(operation, context)) => ({ kind, expect, operation, target, headers }),
    target: (id, pairs) => `${fillPath(operation, context.model.basePath, id, context.vocabulary)}${queryOf(pairs)}`,
  };
  return fc.oneof(
    ...headerMutations(mutating),
    ...keyedMutations(mutating),
    ...paramMutations(mutating),
    ...wrongTypeMutations(mutating),
    ...outOfRangeMutations(mutating),
    ...cursorAndIdMutations(mutating),
  );
}

/** Edits of a real cursor that must each be refused: re-signed payloads, truncation, garbage. */
export function tamperedCursors(cursor: string): string[] {
  const flip = (s: string, at: number) => `${s.slice(0, at)}${s[at] === 'A' ? 'B' : 'A'}${s.slice(at + 1)}`;
  const [payload = cursor] = cursor.split('.');
  const decoded = (() => {
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return { a: [1, 'x'], p: 1 };
    }
  })();
  const reencode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signature = cursor.includes('.') ? cursor.slice(cursor.indexOf('.')) : '';
  return [
    flip(cursor, 0),
    flip(cursor, cursor.length - 1),
    flip(cursor, Math.floor(cursor.length / 2)),
    cursor.slice(0, -1),
    `${cursor}A`,
    `${reencode({ ...decoded, p: 999_999 })}${signature}`,
    `${reencode({ ...decoded, a: ['rose', ...((decoded.a as unknown[] | undefined) ?? []).slice(1)] })}${signature}`,
    reencode({ ...decoded, p: 1 }),
    'AAAA',
    'not-a-cursor',
  ];
}

/** Paths no operation owns: must be a 400 or 404, never forwarded anywhere interesting. */
function oddPathCase(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const { basePath } = context.model;
  const id = context.knownIds[0] ?? '00000000-0000-4000-8000-000000000000';
  return fc
    .constantFrom(
      `${basePath}/nope`,
      `${basePath}//me`,
      `${basePath}/fragrances/${id}/similar/extra`,
      `${basePath}/fragrances/${id}/health`,
      `${basePath}/fragrances/%2e%2e/%2e%2e/health`,
      `${basePath}/fragrances/..%2F..%2Fopenapi.json`,
      `${basePath}/fragrances/%2E%2E`,
      `${basePath}/me/..`,
      `${basePath}/fragrances/x%5c..%5c..%5chealth`,
      `${basePath}/FRAGRANCES`,
      `${basePath}/fragrances;jsessionid=1`,
    )
    .map((target) => ({
      kind: 'odd_path',
      expect: 'reject' as const,
      operation: undefined,
      target,
      headers: headersFor(undefined, context),
    }));
}

/** Every kind of case, valid ones about half the time. */
export function fuzzCase(context: FuzzContext): fc.Arbitrary<FuzzCase> {
  const operations = context.model.operations;
  const validCursor: FuzzCase[] = operations
    .filter((op) => op.parameters.some((p) => p.name === 'cursor'))
    .map((op) => ({
      kind: 'valid_cursor',
      expect: 'success',
      operation: op,
      target: `${context.model.basePath}${op.path}?${context.cursor.query}&cursor=${encode(context.cursor.value)}`,
      headers: headersFor(op, context),
    }));
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...operations).chain((op) => validCase(op, context)) },
    { weight: 9, arbitrary: fc.constantFrom(...operations).chain((op) => mutatedCase(op, context)) },
    { weight: 1, arbitrary: fc.oneof(oddPathCase(context), ...(validCursor.length > 0 ? [fc.constantFrom(...validCursor)] : [])) },
  );
}
