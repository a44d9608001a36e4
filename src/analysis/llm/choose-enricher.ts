/**
 * Which enricher `llm` describes: none, a model of the default backend (a
 * local Ollama), or one of the backend its `kind` names (an
 * OpenAI-compatible server: only when asked for, nothing probes for one).
 * The backends themselves are in backends.ts.
 */
import { analysisBackendNamed, type AnalysisBackendName, DEFAULT_ANALYSIS_BACKEND } from './backends.js';
import type { ModelEnricher, ModelEnricherOptions } from './model-enricher.js';
import type { OllamaEnricherOptions } from './ollama-enricher.js';
import type { OpenAIEnricherOptions } from './openai-enricher.js';

/**
 * false: AST only. true or Ollama options: an Ollama model. `kind: 'openai'`:
 * an OpenAI-compatible server. Any backend by `kind` with a model (one
 * registered at run time included).
 */
export type LlmChoice =
  | boolean
  | OllamaEnricherOptions
  | (OpenAIEnricherOptions & { kind: 'openai' })
  | (ModelEnricherOptions & { kind: AnalysisBackendName; model?: string });

/**
 * Settings from elsewhere (where the embedder's server is, its deadline)
 * that `llm` may override, under each backend's name (`ollama`, `openai`):
 * a backend takes only what belongs to its server (AnalysisBackend.serverSettings).
 */
export interface EnricherServers {
  readonly [backend: string]: object | undefined;
}

/** The enricher for `llm`, or undefined when it is false; `run` adds what belongs to one run (cache, signal, events). */
export function makeEnricher(
  llm: LlmChoice,
  servers: EnricherServers,
  run: Pick<ModelEnricherOptions, 'cache' | 'signal' | 'onEvent'>,
): ModelEnricher | undefined {
  if (llm === false) return undefined;
  const choice: { kind?: string } = llm === true ? {} : llm;
  const backend = analysisBackendNamed(choice.kind ?? DEFAULT_ANALYSIS_BACKEND);
  const server = servers[backend.name];
  const fromServer = server ? (backend.serverSettings?.(server) ?? server) : {};
  return backend.create({ ...fromServer, ...choice, ...run });
}
