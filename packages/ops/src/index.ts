export { parseOptions, UsageError, type Command, type CommandContext, type CommandGroup } from './command.ts';
// The importer's reading of public CSV layouts, for bench:relevance's real catalogue.
export { IMPORT_FORMATS, type ImportFormat } from './import/layouts.ts';
export { readCsv, type ImportLine } from './import/read.ts';
