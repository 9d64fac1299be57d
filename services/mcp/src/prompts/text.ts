import type { PromptMessage } from '@modelcontextprotocol/server';

/** The items of a comma-separated argument, trimmed, without empties. */
export function listOf(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export const userMessage = (text: string): PromptMessage => ({ role: 'user', content: { type: 'text', text } });
