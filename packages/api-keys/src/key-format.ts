import { createHash, randomBytes } from 'node:crypto';

/** Recognisable by people and secret scanners; never part of the entropy. Every key starts so. */
export const API_KEY_PREFIX = 'fcs_';
/** A publishable key (for web pages and apps): `fcs_pk_` + the same random part as a secret key. */
export const PUBLISHABLE_KEY_PREFIX = 'fcs_pk_';
/** Secret keys (servers) and publishable keys (pages, restricted to origins and read endpoints). */
export const KEY_KINDS = ['secret', 'publishable'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256: the random part carries at least 256 bits. */
const RANDOM_LENGTH = 43;
/** Random characters shown after the prefix to name a key to people (`fcs_pk_Ab3d…`): 24 of its 256 bits. */
const HINT_LENGTH = 4;
const SECRET_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);
const PUBLISHABLE_PATTERN = new RegExp(`^${PUBLISHABLE_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

const prefixOf = (kind: KeyKind) => (kind === 'publishable' ? PUBLISHABLE_KEY_PREFIX : API_KEY_PREFIX);

/** A fresh API key of a kind: its prefix plus 43 uniformly random base62 characters. */
export function generateApiKey(kind: KeyKind = 'secret'): string {
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      // Rejection sampling: 248 = 4 × 62, so byte % 62 stays uniform.
      if (byte < 248 && out.length < RANDOM_LENGTH) out += ALPHABET.charAt(byte % 62);
    }
  }
  return prefixOf(kind) + out;
}

/** Shape check only (prefix, length, charset): says nothing about whether the key exists. */
export function isWellFormedApiKey(candidate: string): boolean {
  return keyKindOf(candidate) !== undefined;
}

/** The kind a key's shape says it is (the prefixes differ in length too), or undefined when malformed. */
export function keyKindOf(candidate: string): KeyKind | undefined {
  if (candidate.length === API_KEY_PREFIX.length + RANDOM_LENGTH) return SECRET_PATTERN.test(candidate) ? 'secret' : undefined;
  return PUBLISHABLE_PATTERN.test(candidate) ? 'publishable' : undefined;
}

/** How people see a key after creation (lists, a rolled key's successor): its prefix and first random characters. */
export function keyHint(apiKey: string): string {
  const kind = keyKindOf(apiKey) ?? 'secret';
  return `${apiKey.slice(0, prefixOf(kind).length + HINT_LENGTH)}…`;
}

/** The only form of a key that is ever stored: lowercase hex SHA-256 of the plaintext. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/**
 * The public id operators use (`keys revoke <id>`): derived from the hash so the gateway knows
 * every Redis key of a request before its one round trip. 64 bits of a SHA-256 reveal nothing
 * usable about a 256-bit secret.
 */
export function keyIdOfHash(hash: string): string {
  return `key_${hash.slice(0, 16)}`;
}

const KEY_ID_PATTERN = /^key_[0-9a-f]{16}$/;
export function isKeyId(candidate: string): boolean {
  return KEY_ID_PATTERN.test(candidate);
}

/** Anything shaped like a key of either kind (also with an underscore percent-encoded), anywhere in a text. */
const KEY_IN_TEXT = new RegExp(`fcs(?:_|%5[Ff])(pk(?:_|%5[Ff]))?[0-9A-Za-z]{${RANDOM_LENGTH}}`, 'g');

/** Replaces every key-shaped token, e.g. in a URL about to be logged or forwarded. */
export function redactApiKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, (_match, publishable?: string) => `${publishable ? PUBLISHABLE_KEY_PREFIX : API_KEY_PREFIX}[redacted]`);
}
