// The importer's reading of public CSV layouts, for bench:relevance's real catalogue.
export { readCsv } from './import/read.ts';
