export { brandAliases, brandParts } from './brand-aliases.ts';
export { matchKey } from './match-key.ts';
export { ACCORDS, deriveAccords, NOTE_INFO, NOTES, type Accord, type NoteInfo } from './notes.ts';
export { deriveOccasions, deriveSeasons, OCCASIONS, SEASONS } from './seasons.ts';
export { nameSpellings, querySpellings } from './spellings.ts';
