export { Analyzer, analyzeText } from './analyzer.js';
export type { AnalyzerOptions, Enricher } from './analyzer.js';
export type { AnalysisEvent, LlmFallbackReason } from './events.js';
export { detectLanguage, isCodeLanguage } from './languages.js';
export { DEFAULT_CONTENT_LIMITS, screenContent } from './content.js';
export type { ContentLimits } from './content.js';
export { isSkipped } from './types.js';
export type * from './types.js';
