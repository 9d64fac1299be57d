import { describe, expect, it } from 'vitest';
import { parseItem } from 'structured-headers';
import { deprecationHeaders, DeprecationNotice } from './deprecation.ts';

describe('deprecation headers (RFC 9745, RFC 8594)', () => {
  it('states the deprecation as a Structured Field Date, the sunset as an HTTP-date, and links both', () => {
    const headers = deprecationHeaders({
      deprecation: '2027-01-01T00:00:00Z',
      sunset: '2027-07-01T00:00:00+00:00',
      link: 'https://api.example/docs/api-guide#v2',
    });
    expect(headers).toEqual({
      Deprecation: '@1798761600',
      Sunset: 'Thu, 01 Jul 2027 00:00:00 GMT',
      Link: '<https://api.example/docs/api-guide#v2>; rel="deprecation"; type="text/html", <https://api.example/docs/api-guide#v2>; rel="sunset"; type="text/html"',
    });
    const [date] = parseItem(headers.Deprecation!);
    expect(date).toEqual(new Date('2027-01-01T00:00:00Z'));
  });

  it('announces only what it is given, with whole seconds', () => {
    expect(deprecationHeaders({ deprecation: '2027-01-01T10:00:00.750+10:00' })).toEqual({ Deprecation: '@1798761600' });
    expect(deprecationHeaders({ deprecation: '2027-01-01T00:00:00Z', sunset_link: 'https://api.example/sunset?x=<1>' }).Link).toBe(
      '<https://api.example/sunset?x=%3C1%3E>; rel="sunset"; type="text/html"',
    );
  });

  it('refuses a notice that cannot be announced', () => {
    const issues = (notice: unknown) => DeprecationNotice.safeParse(notice).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ deprecation: '2027-07-01T00:00:00Z', sunset: '2027-01-01T00:00:00Z' })).toEqual([
      'sunset: sunset must not be earlier than deprecation',
    ]);
    expect(issues({ deprecation: 'next year' })?.[0]).toMatch(/^deprecation: must be an RFC 3339 date-time/);
    expect(issues({ deprecation: '2027-01-01T00:00:00Z', link: 'javascript:alert(1)' })?.[0]).toMatch(/^link: must be an http\(s\) URL/);
    expect(issues({ deprecation: '2027-01-01T00:00:00Z', when: 'soon' })?.[0]).toMatch(/when/);
  });
});
