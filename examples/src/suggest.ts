// Search as you type: `node examples/src/suggest.ts "rose oud"` asks /v1/suggest after every
// keystroke of the phrase, the way a search box would, and prints the best suggestions each time.
// (In a real search box, also cancel the previous request when a key is pressed and wait ~100 ms
// of quiet before asking: most keystrokes then cost nothing.)
import { createFragranceClient, FragranceApiError } from '@fragrance/client';
import { loadConfig } from './config.ts';

const phrase = process.argv[2];
if (!phrase) {
  console.error('usage: node examples/src/suggest.ts "<what a person types>"');
  process.exit(2);
}
const { FRAGRANCE_API_URL, FRAGRANCE_API_KEY } = loadConfig();
// A person types faster than the burst limit refills: wait out a short 429 instead of failing.
const client = createFragranceClient({ baseUrl: FRAGRANCE_API_URL, apiKey: FRAGRANCE_API_KEY, retryOn429: { maxWaitSeconds: 2 } });

try {
  for (let typed = 1; typed <= phrase.length; typed += 1) {
    const prefix = phrase.slice(0, typed);
    if (!prefix.trim()) continue;
    const { data } = await client.suggest({ q: prefix, limit: 5 });
    console.log(`${prefix.padEnd(phrase.length)}  →  ${data.map((s) => `${s.text} (${s.type})`).join(' · ') || '(nothing yet)'}`);
  }
} catch (error) {
  // Every refusal is a FragranceApiError with the API's stable code (401 unauthorized, 429 …).
  if (!(error instanceof FragranceApiError)) throw error;
  console.error(`refused: ${error.message}`);
  process.exit(1);
}
