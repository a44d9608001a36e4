/**
 * The environment variables ocvector reads: all of them, and only here. The
 * library takes options; the CLIs turn flags and the environment into
 * options (a flag wins over its variable).
 */
import { API_KEY_VARIABLE } from '../models/openai-client.js';
import { embedderBackendNames, type EmbedderBackendName } from '../vector/backends.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import type { OpenAIEmbedderOptions } from '../vector/openai-embedder.js';

export interface Environment {
  /** OLLAMA_HOST: the Ollama server, as the ollama CLI itself reads it. */
  ollamaHost: string | undefined;
  /** OCVECTOR_EMBEDDER: a registered embedder backend's name (builtin, ollama, openai), or auto (anything else). Unset: the index's own, else auto. */
  embedder: EmbedderBackendName | 'auto' | undefined;
  /** OCVECTOR_EMBEDDING_MODEL: the embedding model (Ollama's, or the OpenAI-compatible server's). */
  embeddingModel: string | undefined;
  /** OCVECTOR_ANALYSIS_MODEL: the analysis model (Ollama's, or the OpenAI-compatible server's). */
  analysisModel: string | undefined;
  /**
   * OCVECTOR_OPENAI_BASE_URL: the OpenAI-compatible server, when no
   * --openai-base-url names one. Never the one an index recorded.
   */
  openaiBaseUrl: string | undefined;
  /**
   * OCVECTOR_API_KEY: the key for an OpenAI-compatible server. Not
   * OPENAI_API_KEY: a key kept for api.openai.com is not to be sent to
   * whatever server --openai-base-url names.
   */
  apiKey: string | undefined;
  /** OCVECTOR_LLM: 0, off, false or no turn analysis by a model off. */
  llm: boolean;
  /** OCVECTOR_NATIVE_PATH: an ocvector.node to load before the built ones. */
  nativePath: string | undefined;
  /** OCVECTOR_DEBUG: stack traces with error messages. */
  debug: boolean;
  /** OCVECTOR_STORE: a shared PostgreSQL store (postgres://…) used instead of the embedded index. */
  store: string | undefined;
  /** OCVECTOR_SCHEMA: the schema the shared store lives in. */
  schema: string | undefined;
}

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const embedder = env.OCVECTOR_EMBEDDER?.toLowerCase();
  return {
    ollamaHost: env.OLLAMA_HOST || undefined,
    embedder: embedder === undefined ? undefined : embedderBackendNames().includes(embedder) ? embedder : 'auto',
    embeddingModel: env.OCVECTOR_EMBEDDING_MODEL || undefined,
    analysisModel: env.OCVECTOR_ANALYSIS_MODEL || undefined,
    openaiBaseUrl: env.OCVECTOR_OPENAI_BASE_URL || undefined,
    apiKey: env[API_KEY_VARIABLE] || undefined,
    llm: !/^(0|off|false|no)$/i.test(env.OCVECTOR_LLM ?? ''),
    nativePath: env.OCVECTOR_NATIVE_PATH || undefined,
    debug: Boolean(env.OCVECTOR_DEBUG),
    store: env.OCVECTOR_STORE || undefined,
    schema: env.OCVECTOR_SCHEMA || undefined,
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

/**
 * What the library is to ask of an OpenAI-compatible server: the base URL
 * `--openai-base-url` gives, else OCVECTOR_OPENAI_BASE_URL's (none: no such
 * server is asked, whatever an index recorded), the key from
 * OCVECTOR_API_KEY, and the embedding model.
 */
export function openAIOptions(
  baseUrlFlag: string | undefined,
  env: Environment = readEnvironment(),
): OpenAIEmbedderOptions {
  const baseUrl = baseUrlFlag ?? env.openaiBaseUrl;
  return {
    ...(baseUrl ? { baseUrl } : {}),
    ...(env.apiKey ? { apiKey: env.apiKey } : {}),
    ...(env.embeddingModel ? { model: env.embeddingModel } : {}),
  };
}
