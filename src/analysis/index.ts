/** The analysis layer's internal exports (its public ones are in src/index.ts). */
export { analyzeText } from './analyzer.js';
export { detectLanguage, isCodeLanguage } from './languages.js';
export { DEFAULT_CONTENT_LIMITS, screenContent } from './content.js';
export type { ContentLimits } from './content.js';
export type * from './types.js';
export { MemoryAnalysisCache, analysisCacheKey } from './llm/cache.js';
export type { AnalysisCache } from './llm/cache.js';
export { PROMPT_VERSION, RESULT_SCHEMA } from './llm/resources.js';
export { DEFAULT_ANALYSIS_MODEL, DEFAULT_OLLAMA_HOST, OLLAMA_ENRICHER_DEFAULTS } from './llm/config.js';
export { AnalysisPool } from './pool.js';
export type { AnalysisPoolOptions } from './pool.js';
export { CircuitBreaker } from './llm/circuit-breaker.js';
