import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { clientAddressOf } from './request-facts.ts';

const from = (ip: string | undefined, remoteAddress?: string) => ({ ip, socket: { remoteAddress } }) as unknown as Request;

describe('clientAddressOf', () => {
  it('counts IPv4 as it is, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(clientAddressOf(from('203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddressOf(from('::ffff:203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddressOf(from('2001:db8:1:2:aaaa::1'))).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf(from('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'))).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf(from(undefined, '198.51.100.1'))).toBe('198.51.100.1');
  });

  it('answers the same for an address seen before, and unknown for text that is no address', () => {
    for (let i = 0; i < 3; i++) {
      expect(clientAddressOf(from('::ffff:192.0.2.9'))).toBe('192.0.2.9');
      expect(clientAddressOf(from('not an address'))).toBe('unknown');
      expect(clientAddressOf(from('1'.repeat(100)))).toBe('unknown');
      expect(clientAddressOf(from(undefined, undefined))).toBe('unknown');
    }
  });

  it('keeps answering right past the bound of the addresses it keeps', () => {
    for (let i = 0; i < 5_000; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      expect(clientAddressOf(from(ip))).toBe(ip);
    }
    expect(clientAddressOf(from('2001:db8:ffff:1::9'))).toBe('2001:db8:ffff:1::/64');
  });
});
