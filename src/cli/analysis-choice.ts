/** Whether a command that indexes (oc-vector-index, the MCP server's reindex) asks a model for descriptions. */
import { DEFAULT_ANALYSIS_MODEL, resolveOllamaHost } from '../analysis/llm/config.js';
import type { OllamaEnricherOptions } from '../analysis/llm/ollama-enricher.js';
import { ollamaHasModel } from '../vector/choose.js';
import type { Environment } from './environment.js';
import { UsageError } from './exit.js';

export interface AnalysisFlags {
  /** false for --no-llm. */
  llm: boolean;
  /** --model. */
  model?: string;
}

/**
 * LLM analysis as asked. Not asked either way: on when the Ollama server
 * lists the analysis model, else off with a note, so that a machine
 * without a model server is not made to try and fail for every file.
 */
export async function analysisChoice(
  flags: AnalysisFlags,
  host: string | undefined,
  env: Environment,
  onNote: (note: string) => void,
): Promise<boolean | OllamaEnricherOptions | undefined> {
  if (!flags.llm) {
    if (flags.model) throw new UsageError('--model names an analysis model: it cannot go with --no-llm');
    return false;
  }
  if (flags.model) return { model: flags.model };
  if (!env.llm) return false;
  const model = env.analysisModel ?? DEFAULT_ANALYSIS_MODEL;
  const url = resolveOllamaHost(host);
  if (await ollamaHasModel(url, model)) return env.analysisModel ? { model } : undefined;
  onNote(
    `no analysis model ${model} at ${url}: syntax-tree analysis only (--model names one; --no-llm skips this check)`,
  );
  return false;
}
