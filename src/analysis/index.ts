/** The analysis layer's internal exports (its public ones are in src/index.ts). */
export { analyzeText } from './analyzer.js';
export { detectLanguage, isCodeLanguage } from './languages.js';
export { DEFAULT_CONTENT_LIMITS, screenContent } from './content.js';
export type { ContentLimits } from './content.js';
export type * from './types.js';
export { MemoryAnalysisCache, analysisCacheKey } from './llm/cache.js';
export type { AnalysisCache } from './llm/cache.js';
export { PROMPT_VERSION, RESULT_SCHEMA } from './llm/resources.js';
