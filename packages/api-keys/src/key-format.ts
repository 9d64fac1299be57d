import { createHash, randomBytes } from 'node:crypto';

/** Recognisable by people and secret scanners; never part of the entropy. */
export const API_KEY_PREFIX = 'fcs_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256: the random part carries at least 256 bits. */
const RANDOM_LENGTH = 43;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

/** A fresh API key: the prefix plus 43 uniformly random base62 characters. */
export function generateApiKey(): string {
  let out = '';
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      // Rejection sampling: 248 = 4 × 62, so byte % 62 stays uniform.
      if (byte < 248 && out.length < RANDOM_LENGTH) out += ALPHABET.charAt(byte % 62);
    }
  }
  return API_KEY_PREFIX + out;
}

/** Shape check only (prefix, length, charset): says nothing about whether the key exists. */
export function isWellFormedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
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

/** Anything shaped like a key (also with the underscore percent-encoded), anywhere in a text. */
const KEY_IN_TEXT = new RegExp(`fcs(?:_|%5[Ff])[0-9A-Za-z]{${RANDOM_LENGTH}}`, 'g');

/** Replaces every key-shaped token, e.g. in a URL about to be logged or forwarded. */
export function redactApiKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, `${API_KEY_PREFIX}[redacted]`);
}
