/** Whether a command that indexes (oc-vector-index, the MCP server's reindex) asks a model for descriptions. */
import type { LlmChoice } from '../analysis/llm/choose-enricher.js';
import { DEFAULT_ANALYSIS_MODEL, resolveOllamaHost } from '../models/config.js';
import { ollamaHasModel } from '../vector/choose.js';
import type { Environment } from './environment.js';
import { UsageError } from './exit.js';

export interface AnalysisFlags {
  /** false for --no-llm; the server's kind for --llm <kind>; undefined when neither was given. */
  llm?: boolean | 'ollama' | 'openai';
  /** --model. */
  model?: string;
}

/** Where the model servers are: --ollama-host (or OLLAMA_HOST), --openai-base-url. */
export interface AnalysisServers {
  ollamaHost?: string | undefined;
  openaiBaseUrl?: string | undefined;
}

/**
 * LLM analysis as asked. An OpenAI-compatible server only when asked for by
 * --llm openai (with --model and --openai-base-url: nothing is guessed).
 * Not asked either way: on when the Ollama server lists the analysis model,
 * else off with a note, so that a machine without a model server is not
 * made to try and fail for every file.
 */
export async function analysisChoice(
  flags: AnalysisFlags,
  servers: AnalysisServers,
  env: Environment,
  onNote: (note: string) => void,
): Promise<LlmChoice | undefined> {
  if (flags.llm === false) {
    if (flags.model) throw new UsageError('--model names an analysis model: it cannot go with --no-llm');
    return false;
  }
  if (flags.llm === 'openai') {
    const model = flags.model ?? env.analysisModel;
    if (!model)
      throw new UsageError('--llm openai needs --model (or OCVECTOR_ANALYSIS_MODEL): the chat model the server serves');
    if (!servers.openaiBaseUrl)
      throw new UsageError(
        "--llm openai needs --openai-base-url: the server's base URL, e.g. http://127.0.0.1:8080/v1",
      );
    return { kind: 'openai', model };
  }
  if (flags.model) return { model: flags.model };
  // Asked for by name: no probe, the model answers or each file says why not.
  if (flags.llm === 'ollama') return env.analysisModel ? { model: env.analysisModel } : true;
  if (!env.llm) return false;
  const model = env.analysisModel ?? DEFAULT_ANALYSIS_MODEL;
  const url = resolveOllamaHost(servers.ollamaHost);
  if (await ollamaHasModel(url, model)) return env.analysisModel ? { model } : undefined;
  onNote(
    `no analysis model ${model} at ${url}: syntax-tree analysis only (--model names one; --no-llm skips this check)`,
  );
  return false;
}
