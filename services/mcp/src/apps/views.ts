import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer, Resource } from '@modelcontextprotocol/server';
import { VIEW_NAMES, viewDocuments, type ViewName } from './html.ts';

/** The `ui://` resource of each view (MCP Apps, `io.modelcontextprotocol/ui`). */
export const VIEW_URIS: Readonly<Record<ViewName, string>> = {
  fragrance: 'ui://fragrance-catalogue/fragrance.html',
  comparison: 'ui://fragrance-catalogue/comparison.html',
  results: 'ui://fragrance-catalogue/results.html',
};

/**
 * How the views ask to be shown: no network origin at all (an empty CSP declaration: the host
 * allows nothing beyond the document itself) and a border around the card.
 */
const UI_META = { ui: { csp: {}, prefersBorder: true } } as const;

const ABOUT: Readonly<Record<ViewName, Pick<Resource, 'name' | 'title' | 'description'>>> = {
  fragrance: {
    name: 'fragrance-view',
    title: 'Fragrance view',
    description: 'MCP App view of get_fragrance: notes pyramid, accords, rating and Australian offers.',
  },
  comparison: {
    name: 'comparison-view',
    title: 'Comparison view',
    description: 'MCP App view of compare_fragrances: the fragrances side by side, shared notes and accords marked.',
  },
  results: {
    name: 'results-view',
    title: 'Result list view',
    description: 'MCP App view of search_fragrances, similar_fragrances and discover_fragrances: the hits in order.',
  },
};

/** The views as resources/list gives them (after the fixed resources, before the brands). */
export const VIEW_RESOURCES: readonly Resource[] = VIEW_NAMES.map((view) => ({
  uri: VIEW_URIS[view],
  ...ABOUT[view],
  mimeType: RESOURCE_MIME_TYPE,
  _meta: UI_META,
}));

/** The tool `_meta` linking a tool to its view; hosts without MCP Apps ignore it and read the text and structured content. */
export const viewOf = (view: ViewName) => ({ ui: { resourceUri: VIEW_URIS[view] } });

/** Registers the three views as `ui://` resources (text/html;profile=mcp-app), read from the bundle built once per process. */
export function registerAppViews(server: McpServer): void {
  for (const view of VIEW_NAMES) {
    const uri = VIEW_URIS[view];
    const { name, ...about } = ABOUT[view];
    registerAppResource(server, name, uri, { ...about, _meta: UI_META }, async () => ({
      contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: (await viewDocuments())[view], _meta: UI_META }],
    }));
  }
}
