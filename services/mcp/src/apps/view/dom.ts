// The few DOM types the views use. The workspace compiles without the DOM lib (it would change
// Node's timer and fetch types for every package), so the browser side declares what it touches.

export interface ViewElement {
  innerHTML: string;
  textContent: string | null;
  hidden: boolean;
  dataset: Record<string, string | undefined>;
  closest(selector: string): ViewElement | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  addEventListener(type: 'click', listener: (event: { target: unknown }) => void): void;
  querySelector(selector: string): ViewElement | null;
  focus(): void;
}

export interface ViewDocument {
  body: ViewElement;
  getElementById(id: string): ViewElement | null;
}

/** Elements only: a click's target may be a text node, which has no `closest`. */
export function isElement(value: unknown): value is ViewElement {
  return typeof value === 'object' && value !== null && typeof (value as { closest?: unknown }).closest === 'function';
}
