export { createFragranceClient, FragranceApiError, type FragranceClient, type FragranceDetail, type SearchQuery } from './client.ts';
