import { describe, expect, it } from 'vitest';
import { moveActive, suggestible } from './keys.ts';

describe('arrow keys in the suggestions', () => {
  it('go down from nothing to the first option and wrap at both ends', () => {
    expect(moveActive(-1, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(0, 3, 'ArrowDown')).toBe(1);
    expect(moveActive(2, 3, 'ArrowDown')).toBe(0);
    expect(moveActive(-1, 3, 'ArrowUp')).toBe(2);
    expect(moveActive(0, 3, 'ArrowUp')).toBe(2);
    expect(moveActive(2, 3, 'ArrowUp')).toBe(1);
  });

  it('choose nothing in an empty list, and other keys move nothing', () => {
    expect(moveActive(-1, 0, 'ArrowDown')).toBe(-1);
    expect(moveActive(1, 3, 'Home')).toBe(1);
  });
});

describe('when suggestions are asked for', () => {
  it('needs a letter or digit, in any script', () => {
    expect(suggestible('r')).toBe(true);
    expect(suggestible('  4')).toBe(true);
    expect(suggestible('é')).toBe(true);
    expect(suggestible('香')).toBe(true);
    expect(suggestible('')).toBe(false);
    expect(suggestible(' - ')).toBe(false);
  });
});
