export { createAdmitter, createRefunder, type Admission, type Admitter, type QuotaState } from './admission.ts';
export { openAdmissionJournal, type AdmissionJournal } from './admission-journal.ts';
export { createLocalAdmission, type DegradedPeriod, type LocalAdmission } from './local-admission.ts';
export { createRecentAdmissions, MAX_REPLAY_WINDOW_MS, type RecentAdmissions, type RecentReplay } from './recent-admissions.ts';
export { localDate, type Clock } from './day-window.ts';
export { API_KEY_PREFIX, generateApiKey, isWellFormedApiKey, keyKindOf, redactApiKeys } from './key-format.ts';
export {
  Burst,
  createKeyStore,
  KeyRequestError,
  MAX_GRACE_MS,
  MAX_QUOTA,
  MaxLimit,
  Refill,
  type ApiKeyRecord,
  type KeyStore,
} from './key-store.ts';
export { ADMISSION_ID, USAGE_RETENTION_DAYS } from './keys.ts';
export { KEY_SCOPES, KeyScope, OriginPattern, type RouteAccess } from './restrictions.ts';
export { addDays, dateRange, daysBetween, monthRange, ownerOfKeyId, readDailyUsage } from './usage.ts';
export { createTokenBucket } from './token-bucket.ts';
