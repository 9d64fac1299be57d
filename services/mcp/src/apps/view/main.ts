// The browser side of the MCP App views (bundled by ../html.ts, never run by Node): connects to the
// host with the ext-apps SDK's App, follows the host's theme, and renders the tool result the host
// sends. `<body data-view>` names the view. Nothing here touches the network: the host proxies
// every request (links open through the host; "Ask about it" becomes a message in the conversation).
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { config } from 'zod/v4/core';
import type { FragranceDetail } from '@fragrance/contracts';
import { isElement, type ViewDocument } from './dom.ts';
import { comparisonView, fragranceView, resultsView, textView, type Compared, type ResultList } from './render.ts';

declare const document: ViewDocument;

// zod would probe `new Function` to compile its parsers: a strict CSP (no 'unsafe-eval') refuses
// that and logs a violation each time. Interpreted parsing is all a view needs.
config({ jitless: true });

const RENDERERS: Record<string, (structured: unknown) => string> = {
  fragrance: (s) => fragranceView(s as FragranceDetail),
  comparison: (s) => comparisonView(s as Compared),
  results: (s) => resultsView(s as ResultList),
};

const root = document.getElementById('app')!;
const view = document.body.dataset.view ?? '';
const app = new App({ name: `fragrance-catalogue-${view}`, version: '1.0.0' }, {});

function applyContext(context: McpUiHostContext | undefined): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  // Host CSS variables (colours, fonts, radii) override the view's own light and dark defaults.
  // Host font CSS (`styles.css.fonts`) is not applied: it loads fonts from the network.
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

function render(result: CallToolResult): void {
  const texts = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
  const renderer = RENDERERS[view];
  root.innerHTML =
    result.isError || !result.structuredContent || !renderer
      ? textView(texts, result.isError === true)
      : renderer(result.structuredContent);
  root.setAttribute('aria-busy', 'false');
}

// Buttons by delegation: inline handlers are not allowed by the view's CSP.
root.addEventListener('click', (event) => {
  const button = isElement(event.target) ? event.target.closest('button') : null;
  if (!button) return;
  const { open, ask, name } = button.dataset;
  if (open) void app.openLink({ url: open });
  else if (ask)
    void app.sendMessage({
      role: 'user',
      content: [{ type: 'text', text: `Tell me more about ${name ?? 'this fragrance'} (fragrance id ${ask}).` }],
    });
});

// Before connecting: the host may send the result right after the handshake.
app.addEventListener('toolresult', (result) => render(result));
app.addEventListener('hostcontextchanged', (context) => applyContext(context));
await app.connect();
applyContext(app.getHostContext());
