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

/**
 * Search as you type, as a WAI-ARIA combobox with a listbox popup: focus stays in the input,
 * `aria-activedescendant` points at the option the arrow keys chose, Enter picks it, Escape
 * closes the list (and, pressed again, clears the text).
 */
export function attachCombobox(options: ComboboxOptions): { close: () => void } {
  const { input, listbox, api } = options;
  let suggestions: Suggestion[] = [];
  let active = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;

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
    if (suggestions.length === 0) {
      close();
      return;
    }
    listbox.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  };
  const render = () => {
    listbox.replaceChildren(
      ...suggestions.map((suggestion, i) =>
        h(
          'li',
          { id: `suggestion-${i}`, role: 'option', 'aria-selected': 'false', class: `suggestion suggestion-${suggestion.type}` },
          h('span', { class: 'suggestion-text' }, suggestion.text),
          h(
            'span',
            { class: 'suggestion-meta' },
            suggestion.brand ?? KIND_LABEL[suggestion.type],
            suggestion.count === undefined ? '' : ` · ${suggestion.count}`,
          ),
        ),
      ),
    );
  };
  /** Closes the list and forgets any answer still on its way (it would open the list again). */
  const settle = () => {
    clearTimeout(timer);
    inFlight?.abort();
    close();
  };
  const choose = (index: number) => {
    const suggestion = suggestions[index];
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
      suggestions = answer.data;
      render();
      setActive(-1);
      if (document.activeElement === input) open();
      options.announce(suggestions.length === 0 ? 'No suggestions.' : `${suggestions.length} suggestions available.`);
    } catch (error) {
      if (!controller.signal.aborted) options.onError(error);
    }
  };

  input.addEventListener('input', () => {
    clearTimeout(timer);
    const text = input.value;
    if (!suggestible(text)) {
      inFlight?.abort();
      suggestions = [];
      close();
      return;
    }
    timer = setTimeout(() => void ask(text), DEBOUNCE_MS);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (suggestions.length === 0) return;
      event.preventDefault();
      if (listbox.hidden) open();
      setActive(moveActive(active, suggestions.length, event.key));
    } else if (event.key === 'Enter' && !listbox.hidden && active >= 0) {
      event.preventDefault();
      choose(active);
    } else if (event.key === 'Escape') {
      if (!listbox.hidden) close();
      else input.value = '';
    } else if (event.key === 'Tab') close();
  });
  input.addEventListener('blur', close);
  // Keep the focus in the input while the pointer picks an option.
  listbox.addEventListener('mousedown', (event) => event.preventDefault());
  listbox.addEventListener('click', (event) => {
    const option = (event.target as Element).closest('[role="option"]');
    if (option !== null) choose(Number(option.id.replace('suggestion-', '')));
  });
  return { close: settle };
}
