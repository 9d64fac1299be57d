import { foldKey } from '@fragrance/contracts';

/*
 * Spellings of the same name: "1 Million" is typed "one million", "212" "two one two", "N°5"
 * "no 5" or "number 5", "L'Eau d'Hiver" "Leau dHiver", "D&G" "d and g". The index stores a
 * name's other spellings beside it (nameSpellings) and a query is also tried in its other
 * spellings (querySpellings), so either side may be written either way. Everything works on
 * folded text (foldKey), where apostrophes, hyphens and `&` are already spaces.
 */

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const VALUE_OF_WORD: ReadonlyMap<string, number> = new Map([
  ...ONES.map((word, i) => [word, i] as const),
  ...TENS.flatMap((word, i) => (word ? [[word, i * 10] as const] : [])),
]);

/** A number under 1,000 in English words ("two hundred twelve"); undefined above. */
export function cardinalWords(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 0 || n >= 1000) return undefined;
  if (n < 20) return ONES[n];
  if (n < 100) return [TENS[Math.floor(n / 10)], n % 10 ? ONES[n % 10] : ''].filter(Boolean).join(' ');
  const rest = n % 100;
  return [`${ONES[Math.floor(n / 100)] ?? ''} hundred`, rest ? cardinalWords(rest) : ''].filter(Boolean).join(' ');
}

/** Digits read one by one ("two one two"). */
const digitWords = (digits: string) => Array.from(digits, (d) => ONES[Number(d)] ?? d).join(' ');

/** Words that sit before an elided vowel in French and Italian names (l'eau, d'hiver, qu'il, dell'). */
const ELIDED = new Set(['l', 'd', 'j', 'm', 'n', 's', 't', 'c', 'qu', 'dell', 'nell', 'sull', 'all']);
const startsWithVowel = (word: string) => /^[aeiouyh]/.test(word);
/** Words written before a number to mean "number" (N°5 folds to "n 5", Nº5 to "no5"). */
const NUMBER_SIGNS = new Set(['n', 'no', 'nr', 'nro', 'number', 'numero']);

const words = (text: string) => text.split(' ').filter(Boolean);

/** The elided words joined to what follows ("l eau d hiver" → "leau dhiver"). */
function joinElisions(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    const next = tokens[i + 1];
    if (ELIDED.has(token) && next !== undefined && startsWithVowel(next)) {
      out.push(token + next);
      i++;
    } else out.push(token);
  }
  return out;
}

/** The name's numbers in words: cardinal ("two hundred twelve") and digit by digit ("two one two"). */
function numbersInWords(tokens: readonly string[], read: (digits: string) => string | undefined): string[] {
  return tokens.map((token) => (/^\d+$/.test(token) ? (read(token) ?? token) : token));
}

/** "n 5" / "no5" / "number 5" → "no 5", plus the joined and spelled-out forms. */
function numberSignForms(tokens: readonly string[]): string[][] {
  const split: string[] = [];
  for (const token of tokens) {
    const glued = /^(no|nr|n)(\d+)$/.exec(token);
    if (glued?.[1] !== undefined && glued[2] !== undefined) split.push(glued[1], glued[2]);
    else split.push(token);
  }
  const at = split.findIndex((token, i) => NUMBER_SIGNS.has(token) && /^\d+$/.test(split[i + 1] ?? ''));
  if (at < 0) return [];
  const digits = split[at + 1] ?? '';
  const around = (...middle: string[]) => [...split.slice(0, at), ...middle, ...split.slice(at + 2)];
  return [around('no', digits), around(`no${digits}`), around('number', digits), around(`n${digits}`)];
}

/** Most other spellings kept per name: bounds the index field. */
const MAX_NAME_SPELLINGS = 8;

/**
 * A name's other spellings, folded, without its own folded form: elisions joined, hyphenated
 * words joined, `&`/`+` as "and", numbers in words (cardinal and digit by digit), and a number
 * sign written as "no 5", "no5", "number 5" and "n5".
 */
export function nameSpellings(name: string): string[] {
  const folded = foldKey(name);
  const tokens = words(folded);
  const out = new Set<string>();
  out.add(joinElisions(tokens).join(' '));
  // Apostrophes dropped, as typed on a phone: "Grey's" → "greys", "O'Pomelo" → "opomelo", "Ex'cla-ma'tion" → "excla mation".
  const unquoted = name.replace(/['’‘`´ʼ]/gu, '');
  out.add(foldKey(unquoted));
  out.add(foldKey(unquoted.replace(/(?<=[\p{L}\p{N}])[-‐‑–](?=[\p{L}\p{N}])/gu, '')));
  out.add(foldKey(name.replace(/(?<=[\p{L}\p{N}])[-‐‑–](?=[\p{L}\p{N}])/gu, '')));
  if (/[&+]/.test(name)) out.add(foldKey(name.replace(/\s*[&+]\s*/g, ' and ')));
  for (const form of numberSignForms(tokens)) out.add(form.join(' '));
  if (tokens.some((t) => /^\d+$/.test(t))) {
    out.add(numbersInWords(tokens, (d) => cardinalWords(Number(d))).join(' '));
    out.add(numbersInWords(tokens, (d) => (d.length >= 2 && d.length <= 4 ? digitWords(d) : undefined)).join(' '));
  }
  out.delete(folded);
  out.delete('');
  return [...out].slice(0, MAX_NAME_SPELLINGS);
}

/** Number words of a folded query turned into digits: "two one two" → "212", "twenty one" → "21", "one million" → "1 million". */
function numberWordsAsDigits(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length;) {
    const run: number[] = [];
    while (i + run.length < tokens.length && VALUE_OF_WORD.has(tokens[i + run.length] ?? ''))
      run.push(VALUE_OF_WORD.get(tokens[i + run.length]!)!);
    if (run.length === 0) {
      out.push(tokens[i] ?? '');
      i++;
      continue;
    }
    i += run.length;
    const [first, second] = run;
    // "twenty one": a ten and a unit make one number; anything else is read digit by digit.
    if (run.length === 2 && first !== undefined && second !== undefined && first >= 20 && first % 10 === 0 && second < 10)
      out.push(String(first + second));
    else out.push(run.join(''));
  }
  return out;
}

/** Runs of two or more single letters joined, "and" between them dropped: "d g" / "d and g" → "dg", "a f" → "af". */
function joinInitials(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length;) {
    let j = i;
    const letters: string[] = [];
    while (j < tokens.length) {
      const token = tokens[j] ?? '';
      if (/^\p{L}$/u.test(token)) {
        letters.push(token);
        j++;
      } else if (token === 'and' && letters.length > 0 && /^\p{L}$/u.test(tokens[j + 1] ?? '')) j++;
      else break;
    }
    if (letters.length >= 2) {
      out.push(letters.join(''));
      i = j;
    } else {
      out.push(tokens[i] ?? '');
      i++;
    }
  }
  return out;
}

/**
 * A folded query's other spellings, without itself: single letters joined ("d g" → "dg", the
 * way acronyms are indexed), number words as digits. Names' own other spellings are indexed
 * (nameSpellings), so "leau", "one million" and "no5" need nothing here.
 */
export function querySpellings(key: string): string[] {
  const tokens = words(key);
  const out = new Set<string>();
  const initialsJoined = joinInitials(tokens);
  out.add(initialsJoined.join(' '));
  out.add(numberWordsAsDigits(tokens).join(' '));
  out.add(numberWordsAsDigits(initialsJoined).join(' '));
  out.delete(key);
  out.delete('');
  return [...out];
}
