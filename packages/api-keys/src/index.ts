export { createAdmitter, createRefunder, type Admitter, type QuotaState } from './admission.ts';
export { localDate, type Clock } from './day-window.ts';
export { API_KEY_PREFIX, generateApiKey, isWellFormedApiKey, redactApiKeys } from './key-format.ts';
export { Burst, createKeyStore, MAX_QUOTA, Refill, type ApiKeyRecord, type KeyStore } from './key-store.ts';
export { ADMISSION_ID, USAGE_RETENTION_DAYS } from './keys.ts';
export { addDays, dateRange, daysBetween, monthRange, readDailyUsage } from './usage.ts';
export { createTokenBucket } from './token-bucket.ts';
