/** Pure keyboard rules of the suggestions list (the WAI-ARIA combobox pattern), kept apart from the DOM to test them. */

/** The option a key moves to from `active` (-1: none) among `count` options; wraps at both ends. */
export function moveActive(active: number, count: number, key: string): number {
  if (count === 0) return -1;
  if (key === 'ArrowDown') return active < 0 || active >= count - 1 ? 0 : active + 1;
  if (key === 'ArrowUp') return active <= 0 ? count - 1 : active - 1;
  return active;
}

/** Whether `text` is worth asking suggestions for: the API wants a letter or digit in it. */
export function suggestible(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}
