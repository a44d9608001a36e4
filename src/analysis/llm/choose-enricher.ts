/**
 * Which enricher `llm` describes: none, an Ollama model (the default), or a
 * model on an OpenAI-compatible server (only when asked for: nothing
 * probes for one).
 */
import type { ModelEnricher, ModelEnricherOptions } from './model-enricher.js';
import { OllamaEnricher, type OllamaEnricherOptions } from './ollama-enricher.js';
import { OpenAIEnricher, type OpenAIEnricherOptions } from './openai-enricher.js';
import type { OpenAIServerOptions } from '../../models/openai-client.js';

/** false: AST only. true or Ollama options: an Ollama model. `kind: 'openai'`: an OpenAI-compatible server. */
export type LlmChoice = boolean | OllamaEnricherOptions | (OpenAIEnricherOptions & { kind: 'openai' });

/** Settings from elsewhere (where the embedder's server is, its deadline) that `llm` may override. */
export interface EnricherServers {
  ollama?: Pick<OllamaEnricherOptions, 'host' | 'timeoutMs'>;
  openai?: OpenAIServerOptions;
}

/** The enricher for `llm`, or undefined when it is false; `run` adds what belongs to one run (cache, signal, events). */
export function makeEnricher(
  llm: LlmChoice,
  servers: EnricherServers,
  run: Pick<ModelEnricherOptions, 'cache' | 'signal' | 'onEvent'>,
): ModelEnricher | undefined {
  if (llm === false) return undefined;
  if (llm !== true && llm.kind === 'openai')
    return new OpenAIEnricher({ ...serverPart(servers.openai), ...llm, ...run });
  return new OllamaEnricher({ ...servers.ollama, ...(llm === true ? {} : llm), ...run });
}

/** Where the server is and how to reach it, without what belongs to another use of it (an embedding model). */
function serverPart(options: OpenAIServerOptions = {}): OpenAIServerOptions {
  const { baseUrl, apiKey, timeoutMs, maxResponseBytes } = options;
  return Object.fromEntries(
    Object.entries({ baseUrl, apiKey, timeoutMs, maxResponseBytes }).filter(([, value]) => value !== undefined),
  );
}
