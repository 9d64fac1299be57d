import type { Suggestion } from '@fragrance/contracts';
import type { StorefrontApi } from './api.ts';
import { h } from './dom.ts';
import { moveActive, suggestible } from './keys.ts';

/** Wait after the last keystroke before asking (fast typists send one request, not five). */
const DEBOUNCE_MS = 120;

const KIND_LABEL: Record<Suggestion['type'], string> = {
  fragrance: 'Fragrance',
  brand: 'Brand',
  perfumer: 'Perfumer',
  note: 'Note',
  accord: 'Accord',
};

export interface ComboboxOptions {
  input: HTMLInputElement;
  listbox: HTMLUListElement;
  api: StorefrontApi;
  /** A suggestion was picked (Enter on the active option, or a click). */
  onChoose: (suggestion: Suggestion) => void;
  /** Something screen readers should hear ("5 suggestions"). */
  announce: (text: string) => void;
  /** A suggest call failed (other than being superseded). */
  onError: (error: unknown) => void;
}

function optionOf(suggestion: Suggestion, index: number): HTMLLIElement {
  return h(
    'li',
    { id: `suggestion-${index}`, role: 'option', 'aria-selected': 'false', class: `suggestion suggestion-${suggestion.type}` },
    h('span', { class: 'suggestion-text' }, suggestion.text),
    h(
      'span',
      { class: 'suggestion-meta' },
      suggestion.brand ?? KIND_LABEL[suggestion.type],
      suggestion.count === undefined ? '' : ` · ${suggestion.count}`,
    ),
  );
}

/** The listbox's ARIA state: which suggestions it shows, whether it is open, which option is active. */
function listboxView(input: HTMLInputElement, listbox: HTMLUListElement) {
  let suggestions: Suggestion[] = [];
  let active = -1;
  const setActive = (index: number) => {
    active = index;
    listbox.querySelectorAll('[role="option"]').forEach((option, i) => option.setAttribute('aria-selected', String(i === index)));
    if (index < 0) input.removeAttribute('aria-activedescendant');
    else {
      input.setAttribute('aria-activedescendant', `suggestion-${index}`);
      document.getElementById(`suggestion-${index}`)?.scrollIntoView({ block: 'nearest' });
    }
  };
  const close = () => {
    listbox.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    setActive(-1);
  };
  const open = () => {
    if (suggestions.length === 0) return void close();
    listbox.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  };
  return {
    get suggestions() {
      return suggestions;
    },
    get active() {
      return active;
    },
    get isOpen() {
      return !listbox.hidden;
    },
    show(next: Suggestion[]) {
      suggestions = next;
      listbox.replaceChildren(...next.map(optionOf));
      setActive(-1);
    },
    setActive,
    open,
    close,
  };
}

/**
 * Search as you type, as a WAI-ARIA combobox with a listbox popup: focus stays in the input,
 * `aria-activedescendant` points at the option the arrow keys chose, Enter picks it, Escape
 * closes the list (and, pressed again, clears the text).
 */
export function attachCombobox(options: ComboboxOptions): { close: () => void } {
  const { input, listbox, api } = options;
  const view = listboxView(input, listbox);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;

  /** Closes the list and forgets any answer still on its way (it would open the list again). */
  const settle = () => {
    clearTimeout(timer);
    inFlight?.abort();
    view.close();
  };
  const choose = (index: number) => {
    const suggestion = view.suggestions[index];
    if (suggestion === undefined) return;
    settle();
    options.onChoose(suggestion);
  };
  const ask = async (text: string) => {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    try {
      const answer = await api.suggest(text, controller.signal);
      if (controller.signal.aborted || input.value !== text) return;
      view.show(answer.data);
      if (document.activeElement === input) view.open();
      options.announce(answer.data.length === 0 ? 'No suggestions.' : `${answer.data.length} suggestions available.`);
    } catch (error) {
      if (!controller.signal.aborted) options.onError(error);
    }
  };

  input.addEventListener('input', () => {
    clearTimeout(timer);
    const text = input.value;
    if (suggestible(text)) timer = setTimeout(() => void ask(text), DEBOUNCE_MS);
    else {
      settle();
      view.show([]);
    }
  });
  input.addEventListener('keydown', (event) => onKey(event, view, choose, input));
  input.addEventListener('blur', view.close);
  // Keep the focus in the input while the pointer picks an option.
  listbox.addEventListener('mousedown', (event) => event.preventDefault());
  listbox.addEventListener('click', (event) => {
    const option = (event.target as Element).closest('[role="option"]');
    if (option !== null) choose(Number(option.id.replace('suggestion-', '')));
  });
  return { close: settle };
}

/** The combobox's keys: arrows move the active option, Enter picks it, Escape closes (then clears), Tab leaves. */
function onKey(event: KeyboardEvent, view: ReturnType<typeof listboxView>, choose: (index: number) => void, input: HTMLInputElement): void {
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    if (view.suggestions.length === 0) return;
    event.preventDefault();
    if (!view.isOpen) view.open();
    view.setActive(moveActive(view.active, view.suggestions.length, event.key));
  } else if (event.key === 'Enter' && view.isOpen && view.active >= 0) {
    event.preventDefault();
    choose(view.active);
  } else if (event.key === 'Escape') {
    if (view.isOpen) view.close();
    else input.value = '';
  } else if (event.key === 'Tab') view.close();
}
