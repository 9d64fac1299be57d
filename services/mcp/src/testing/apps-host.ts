// The MCP Apps host of test/apps.browser.slow.test.ts, bundled for the browser by that test: the
// ext-apps SDK's own host side (AppBridge over PostMessageTransport) shows a view the test read
// with resources/read in a sandboxed iframe, as a chat client does, sends it the tool's arguments
// and result, and records what the view asks of the host (open a link, post a message).
import { AppBridge, PostMessageTransport, type McpUiHostContext, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/client';

/** The few DOM members used here (the workspace compiles without the DOM lib). */
interface Frame {
  id: string;
  title: string;
  srcdoc: string;
  contentWindow: unknown;
  setAttribute(name: string, value: string): void;
  style: { height: string; width: string; border: string; display: string };
}
declare const document: {
  createElement(tag: 'iframe'): Frame;
  getElementById(id: string): Frame | null;
  body: { append(node: Frame): void; replaceChildren(): void };
};
declare const window: { fcsHost?: unknown };

export interface Shown {
  /** What the view asked the host to do, in order. */
  requests: { method: 'open-link' | 'message'; params: unknown }[];
  initialized: boolean;
}

const shown: Shown = { requests: [], initialized: false };

async function show(options: {
  html: string;
  csp: McpUiResourceCsp | undefined;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolResult: CallToolResult;
  hostContext: McpUiHostContext;
}): Promise<void> {
  document.body.replaceChildren();
  shown.requests = [];
  shown.initialized = false;
  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.title = options.toolName;
  // As hosts do: scripts run, but in an opaque origin (no allow-same-origin), no forms, no popups.
  frame.setAttribute('sandbox', 'allow-scripts');
  // A chat column's width; the height follows the view (ui/notifications/size-changed).
  frame.style.width = '760px';
  frame.style.height = '400px';
  frame.style.border = '1px solid #8a8f98';
  frame.style.display = 'block';
  document.body.append(frame);

  const bridge = new AppBridge(
    null,
    { name: 'fcs-test-host', version: '1.0.0' },
    { openLinks: {}, message: { text: {} }, ...(options.csp ? { sandbox: { csp: options.csp } } : {}) },
    { hostContext: { ...options.hostContext, toolInfo: { tool: { name: options.toolName, inputSchema: { type: 'object' } } } } },
  );
  bridge.onopenlink = async (params) => {
    shown.requests.push({ method: 'open-link', params });
    return {};
  };
  bridge.onmessage = async (params) => {
    shown.requests.push({ method: 'message', params });
    return {};
  };
  bridge.addEventListener('sizechange', ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(height)}px`;
  });
  const ready = new Promise<void>((resolve) => {
    bridge.addEventListener('initialized', () => {
      shown.initialized = true;
      void bridge
        .sendToolInput({ arguments: options.toolInput })
        .then(() => bridge.sendToolResult(options.toolResult))
        .then(() => resolve());
    });
  });
  // Listening before the document loads: the view's ui/initialize comes as soon as it runs.
  // contentWindow is `unknown` here (no DOM lib); the transport's Window type is unresolved too, so it takes it.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = options.html;
  await ready;
}

window.fcsHost = { show, shown };
