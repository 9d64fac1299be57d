export {
  createAdmitter,
  createRefunder,
  type Admission,
  type Admitter,
  type AdmitterOptions,
  type BucketSettings,
  type QuotaState,
} from './admission.ts';
export { dayWindow, isValidTimeZone, localDate, secondsUntil, systemClock, type Clock, type DayWindow } from './day-window.ts';
export { API_KEY_PREFIX, generateApiKey, hashApiKey, isKeyId, isWellFormedApiKey, keyIdOfHash, redactApiKeys } from './key-format.ts';
export {
  Burst,
  createKeyStore,
  MAX_QUOTA,
  Owner,
  Quota,
  Refill,
  UnknownKeyError,
  type ApiKeyRecord,
  type KeyStore,
  type KeyStoreOptions,
} from './key-store.ts';
export { ADMISSION_ID, ADMISSION_ID_TTL_SECONDS, DEFAULT_PREFIX, redisKeys, USAGE_RETENTION_DAYS } from './keys.ts';
export { addDays, dateRange, daysBetween, monthRange, readDailyUsage, type DailyUsage } from './usage.ts';
export { createTokenBucket, type TakenCounter, type TokenBucket, type TokenBucketOptions, type TokenDecision } from './token-bucket.ts';
