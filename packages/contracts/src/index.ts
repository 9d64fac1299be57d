export { InvalidParam, Problem, PROBLEM_CONTENT_TYPE } from './problem.ts';
export {
  AuAvailability,
  AuOffer,
  AuRetailerFeedLine,
  Concentration,
  CONCENTRATIONS,
  FragranceDetail,
  FragranceSummary,
  Notes,
  PROVENANCE_SOURCES,
  ProvenanceEntry,
  ProvenanceSource,
  Rating,
} from './fragrance.ts';
export { MeResponse } from './me.ts';
