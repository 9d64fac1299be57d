/** mulberry32: a tiny seeded PRNG so a bench's request mix is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One element of a non-empty list, chosen by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick() from an empty list');
  return item;
}

/** A realistic typo: a dropped, doubled or swapped letter in the first word of 5+ letters (text unchanged if none). */
export function typo(random: () => number, text: string): string {
  const words = text.split(' ');
  const i = words.findIndex((w) => w.length >= 5);
  const word = words[i];
  if (word === undefined) return text;
  const at = 1 + Math.floor(random() * (word.length - 2));
  const kind = random();
  const changed =
    kind < 0.33
      ? word.slice(0, at) + word.slice(at + 1)
      : kind < 0.66
        ? word.slice(0, at) + word.charAt(at) + word.slice(at)
        : word.slice(0, at - 1) + word.charAt(at) + word.charAt(at - 1) + word.slice(at + 1);
  words[i] = changed;
  return words.join(' ');
}
