export { brandAliases, brandParts, CURATED_BRAND_ALIASES, type CuratedBrandAliases } from './brand-aliases.ts';
export { matchKey, parseConcentration } from './match-key.ts';
export { ACCORDS, deriveAccords, NOTE_ACCORDS, NOTE_INFO, NOTES, type Accord, type NoteInfo } from './notes.ts';
export { deriveOccasions, deriveSeasons, OCCASIONS, SEASONS, type Occasion, type Season } from './seasons.ts';
export { cardinalWords, nameSpellings, querySpellings } from './spellings.ts';
