import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isSafeRequestId, requestIdOf } from './logger.ts';

const withId = (id: string | string[] | undefined) => ({ headers: { 'x-request-id': id } }) as unknown as IncomingMessage;

describe('request ids', () => {
  it.each(['abc-123', 'trace.42_A-b', '7f3c2a9e-1b2d-4c5e-8f90-123456789abc', '4bf92f3577b34da6a3ce929d0e0e4736', 'x'.repeat(39)])(
    'keeps the safe client id %j',
    (id) => {
      expect(isSafeRequestId(id)).toBe(true);
      expect(requestIdOf(withId(id))).toBe(id);
    },
  );

  it.each([
    ['an API key', `fcs_${'a1B2c3D4e5'.repeat(4)}xyz`],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig'],
    ['an opaque token', 'Qm9yZWRPZlJlYWRpbmdUaGlzUmFuZG9tVG9rZW5WYWx1ZQ'],
    ['too long', 'a-'.repeat(33)],
    ['empty', ''],
    ['a colon', 'a:b'],
    ['a space', 'a b'],
    ['a newline', 'a\nb'],
    ['non-ASCII', 'café'],
  ])('replaces %s with a fresh UUID', (_what, id) => {
    expect(isSafeRequestId(id)).toBe(false);
    expect(requestIdOf(withId(id))).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('replaces a repeated header', () => {
    expect(requestIdOf(withId(['a', 'b']))).toMatch(/^[0-9a-f-]{36}$/);
  });
});
