// The views' HTML from tool results, without a browser (test/apps.browser.slow.test.ts renders them
// in Chromium through a real MCP Apps host).
import { describe, expect, it } from 'vitest';
import { makeRecord } from '@fragrance/search/testing';
import { compareFragrances } from '../../tools/compare.ts';
import { comparisonView, esc, fragranceView, resultsView, textView } from './render.ts';

const HOSTILE = '<img src=x onerror="alert(1)">';

const record = makeRecord({
  name: `Vetiver ${HOSTILE}`,
  brand: 'Maison "Test"',
  accords: ['woody', 'earthy', 'citrus'],
  notes: { top: ['bergamot', 'grapefruit'], heart: ['vetiver'], base: ['cedar', 'musk'] },
  available_in_au: true,
  perfumers: ['Jean-Claude Ellena'],
});
record.au_offers = [
  { retailer: 'Dearer', url: 'https://dearer.example/v', price_aud: 210, size_ml: 100, in_stock: true, seen_at: '2026-01-02T00:00:00Z' },
  {
    retailer: 'Cheaper',
    url: 'https://cheaper.example/v?a=1&b=2',
    price_aud: 150,
    size_ml: 50,
    in_stock: false,
    seen_at: '2026-01-02T00:00:00Z',
  },
];

describe('views', () => {
  it('escapes every catalogue value: markup in a name stays text', () => {
    expect(esc(`a<b>&"c'`)).toBe('a&lt;b&gt;&amp;&quot;c&#39;');
    const html = fragranceView(record);
    expect(html).not.toContain('<img');
    expect(html).toContain('Vetiver &lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(html).toContain('Maison &quot;Test&quot;');
    // No handler or style attribute in any tag (the view's CSP would refuse both).
    expect(html).not.toMatch(/<[^>]*\s(on[a-z]+|style)=/);
  });

  it('the fragrance: notes by stage, accords strongest first, offers cheapest first with a button that opens each', () => {
    const html = fragranceView(record);
    expect(html).toMatch(/Top notes.*bergamot.*grapefruit.*Heart notes.*vetiver.*Base notes.*cedar.*musk/s);
    expect(html).toMatch(/bar-10.*bar-9.*bar-8/s);
    expect(html.indexOf('Cheaper')).toBeLessThan(html.indexOf('Dearer'));
    expect(html).toContain('data-open="https://cheaper.example/v?a=1&amp;b=2"');
    expect(html).toContain('Available from 2 offers, AUD 120.00 to AUD 180.00.');
    expect(html).toContain('<strong>4.0</strong>/5');
  });

  it('a fragrance not seen in Australia says so, with no offer table', () => {
    const html = fragranceView(makeRecord({ name: 'Nowhere', brand: 'B' }));
    expect(html).toContain('Not seen at Australian retailers.');
    expect(html).not.toContain('<table');
  });

  it('the comparison: a column each, shared notes and accords marked, the best rated named', () => {
    const other = makeRecord({ name: 'Other', brand: 'B', average: 4.6, accords: ['woody', 'fresh'], notes: { base: ['cedar'] } });
    const html = comparisonView(compareFragrances([record, other]));
    expect(html).toContain('Comparing 2 fragrances');
    expect(html.match(/<th scope="col">/g)).toHaveLength(2);
    expect(html).toMatch(/<li class="chip marked">woody<span class="sr-only"> \(shared by all\)<\/span><\/li>/);
    expect(html).toMatch(/<li class="chip marked">cedar/);
    expect(html).toMatch(/Other<\/span><span class="muted">B<\/span><span class="badge">Best rated<\/span>/);
    expect(html.match(/data-ask=/g)).toHaveLength(2);
  });

  it('the result list: search hits numbered from the offset, alternatives with their closeness and reasons', () => {
    const search = resultsView({ data: [record, makeRecord({ name: 'Second', brand: 'B' })], total: 42, offset: 10 });
    expect(search).toContain('42 fragrances matched; 11–12 shown');
    expect(search).toMatch(/<span class="pos">11\.<\/span>.*<span class="pos">12\.<\/span>/s);
    const similar = resultsView({
      id: record.id,
      data: [
        {
          ...makeRecord({ name: 'Alike', brand: 'C' }),
          closeness: 0.8123,
          reasons: {
            shared_notes: { top: [], heart: ['vetiver'], base: [] },
            shared_main_accords: ['woody'],
            shared_accords: [],
            distinctive: ['vetiver'],
            adds: { notes: [], accords: [] },
            vector_similarity: null,
            summary: 'Shares vetiver and woody.',
          },
        },
      ],
    });
    expect(similar).toContain('1 alternatives (similar, not identical)');
    expect(similar).toContain('closeness 0.81: Shares vetiver and woody.');
    expect(resultsView({ data: [], total: 0 })).toContain('No fragrances matched.');
  });

  it('an error result is shown as its text, announced', () => {
    expect(textView(['Not found: no fragrance has the id x.'], true)).toBe(
      '<div class="error" role="alert"><p>Not found: no fragrance has the id x.</p></div>',
    );
  });
});
