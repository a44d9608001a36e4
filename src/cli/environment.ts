/**
 * The environment variables ocvector reads: all of them, and only here. The
 * library takes options; the CLIs turn flags and the environment into
 * options (a flag wins over its variable).
 */
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';

export interface Environment {
  /** OLLAMA_HOST: the Ollama server, as the ollama CLI itself reads it. */
  ollamaHost: string | undefined;
  /** OCVECTOR_EMBEDDER: builtin, ollama, or auto (anything else). Unset: the index's own, else auto. */
  embedder: 'builtin' | 'ollama' | 'auto' | undefined;
  /** OCVECTOR_EMBEDDING_MODEL: the Ollama embedding model. */
  embeddingModel: string | undefined;
  /** OCVECTOR_ANALYSIS_MODEL: the Ollama analysis model. */
  analysisModel: string | undefined;
  /** OCVECTOR_LLM: 0, off, false or no turn analysis by a model off. */
  llm: boolean;
  /** OCVECTOR_NATIVE_PATH: an ocvector.node to load before the built ones. */
  nativePath: string | undefined;
  /** OCVECTOR_DEBUG: stack traces with error messages. */
  debug: boolean;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const embedder = env.OCVECTOR_EMBEDDER?.toLowerCase();
  return {
    ollamaHost: env.OLLAMA_HOST || undefined,
    embedder: embedder === undefined ? undefined : embedder === 'builtin' || embedder === 'ollama' ? embedder : 'auto',
    embeddingModel: env.OCVECTOR_EMBEDDING_MODEL || undefined,
    analysisModel: env.OCVECTOR_ANALYSIS_MODEL || undefined,
    llm: !/^(0|off|false|no)$/i.test(env.OCVECTOR_LLM ?? ''),
    nativePath: env.OCVECTOR_NATIVE_PATH || undefined,
    debug: Boolean(env.OCVECTOR_DEBUG),
  };
}

/** What the library is to ask of Ollama: `--ollama-host` before OLLAMA_HOST, and the embedding model. */
export function ollamaOptions(
  hostFlag: string | undefined,
  env: Environment = readEnvironment(),
): OllamaEmbedderOptions {
  const host = hostFlag ?? env.ollamaHost;
  return { ...(host ? { host } : {}), ...(env.embeddingModel ? { model: env.embeddingModel } : {}) };
}
