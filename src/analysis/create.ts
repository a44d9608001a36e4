/**
 * The Analyzer a user gets from configuration: tree-sitter always, a model
 * when LLM analysis is on (Ollama's by default, or an OpenAI-compatible
 * server's with `kind: 'openai'`). Off by `llm: false` (the CLIs' --no-llm
 * and OCVECTOR_LLM=off); nothing is sent anywhere then.
 */
import { Analyzer, type AnalyzerOptions } from './analyzer.js';
import { type LlmChoice, makeEnricher } from './llm/choose-enricher.js';
import type { ModelEnricher } from './llm/model-enricher.js';

export interface CreateAnalyzerOptions extends Omit<AnalyzerOptions, 'enricher'> {
  /** false: AST only. true or options: enrich with a model (Ollama's unless `kind: 'openai'`). Default true. */
  llm?: LlmChoice;
}

export function createAnalyzer(options: CreateAnalyzerOptions = {}): {
  analyzer: Analyzer;
  enricher: ModelEnricher | undefined;
} {
  const { llm = true, ...rest } = options;
  const enricher = makeEnricher(llm, {}, rest.onEvent ? { onEvent: rest.onEvent } : {});
  return { analyzer: new Analyzer({ ...rest, ...(enricher ? { enricher } : {}) }), enricher };
}
