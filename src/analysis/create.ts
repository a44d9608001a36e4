/**
 * The Analyzer a user gets from configuration: tree-sitter always, the Ollama
 * model when LLM analysis is on. Off by `llm: false` (the CLIs' --no-llm and
 * OCVECTOR_LLM=off); nothing is sent anywhere then.
 */
import { Analyzer, type AnalyzerOptions } from './analyzer.js';
import { OllamaEnricher, type OllamaEnricherOptions } from './llm/ollama-enricher.js';

export interface CreateAnalyzerOptions extends Omit<AnalyzerOptions, 'enricher'> {
  /** false: AST only. true or options: enrich with an Ollama model. Default true. */
  llm?: boolean | OllamaEnricherOptions;
}

export function createAnalyzer(options: CreateAnalyzerOptions = {}): {
  analyzer: Analyzer;
  enricher: OllamaEnricher | undefined;
} {
  const { llm = true, ...rest } = options;
  const enricher =
    llm === false
      ? undefined
      : new OllamaEnricher({ ...(llm === true ? {} : llm), ...(rest.onEvent ? { onEvent: rest.onEvent } : {}) });
  return { analyzer: new Analyzer({ ...rest, ...(enricher ? { enricher } : {}) }), enricher };
}
