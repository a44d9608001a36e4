/**
 * The extractors of their own that some languages' records name (TypeScript's,
 * which TSX and JavaScript share, and Python's): the records name them by key,
 * so that reading the records (a search filters by language) loads no
 * extractor; languages.ts looks the key up here when a file is analysed. A
 * language read through the generic extractor needs nothing here: its record
 * holds its table.
 */
import type { SyntaxExtractor } from './ast/extractor.js';
import { pythonExtractor } from './ast/python.js';
import { typescriptExtractor } from './ast/typescript.js';

export const OWN_EXTRACTORS = {
  typescript: typescriptExtractor,
  python: pythonExtractor,
} as const satisfies Record<string, SyntaxExtractor>;

/** What a record names its own extractor by. */
export type OwnExtractorName = keyof typeof OWN_EXTRACTORS;
