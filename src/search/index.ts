/** The search layer's internal exports (its public ones are in src/index.ts). */
export { MAX_K, MAX_QUERY_LENGTH } from './searcher.js';
export { parseQuery, matchExpression, searchTerms, ftsExpression, isIdentifierLike, isPathLike } from './query.js';
export type { ParsedQuery } from './query.js';
export {
  compileFilters,
  canonicalLanguage,
  LANGUAGES,
  ELEMENT_TYPES,
  LANGUAGE_ALIASES,
} from './filters.js';
export { compileGlob, type GlobMatcher } from './glob.js';
export { DEFAULT_FUSION_WEIGHTS, nameMatch, relativeScores, type ScoredHit } from './ranking/fusion.js';
export type { NameMatch } from './ranking/fusion.js';
export { cutLines, DEFAULT_SNIPPET_OPTIONS, snippetLines } from './source.js';
export { findReferences, parseSymbol, DEFAULT_REFERENCE_SITES, MAX_REFERENCE_SITES } from './references.js';
export type {
  ReferencesOptions,
  ReferencesResponse,
  ReferenceFile,
  ReferenceSite,
  ReferenceDefinition,
} from './references.js';
