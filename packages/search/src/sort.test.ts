import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { idSortKey, INDEX_SORT, SORT_ORDERS } from './sort.ts';

/** A random UUID-shaped id; `mixed` upper-cases some hex letters (the contract's z.uuid() admits both cases). */
function randomId(mixed: boolean): string {
  const hex = Array.from(randomBytes(16).toString('hex'), (c) => c)
    .map((c) => (mixed && Math.random() < 0.5 ? c.toUpperCase() : c))
    .join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const keyOrder = (a: string, b: string) => {
  const [x, y] = [idSortKey(a)!, idSortKey(b)!];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

describe('idSortKey', () => {
  it('orders ids exactly as the id keyword does (byte order), lower, upper and mixed case', () => {
    const ids = [
      ...Array.from({ length: 2000 }, (_, i) => randomId(i % 2 === 0)),
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
      // Differ only in the last digit, and only in case.
      '12345678-9abc-4def-8123-456789abcdef',
      '12345678-9abc-4def-8123-456789abcdeF',
      '12345678-9abc-4def-8123-456789abcde0',
    ];
    expect([...ids].sort(keyOrder)).toEqual([...ids].sort(byteOrder));
  });

  it('gives distinct ids distinct keys, each part a safe integer (exact in JSON)', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => randomId(i % 3 === 0));
    ids.push('ffffffff-ffff-ffff-ffff-ffffffffffff');
    const keys = new Set(ids.map((id) => JSON.stringify(idSortKey(id))));
    expect(keys.size).toBe(new Set(ids).size);
    for (const id of ids) for (const part of idSortKey(id)!) expect(Number.isSafeInteger(part) && part >= 0).toBe(true);
  });

  it('has no key for what is not a UUID', () => {
    for (const id of [
      '',
      'id',
      '12345678-9abc-4def-8123-456789abcde',
      '12345678-9abc-4def-8123-456789abcdeg',
      '123456789abc4def8123456789abcdef0',
    ])
      expect(idSortKey(id)).toBeUndefined();
  });
});

describe('INDEX_SORT', () => {
  it('is the votes order, field for field', () => {
    expect(SORT_ORDERS.votes.sort).toEqual(INDEX_SORT.field.map((field, i) => ({ [field]: INDEX_SORT.order[i] })));
  });
});
