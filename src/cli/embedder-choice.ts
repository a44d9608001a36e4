/** Which embedder the commands that index (oc-vector-index, the MCP server's reindex) ask for, from their flags. */
import { API_KEY_VARIABLE } from '../models/openai-client.js';
import type { EmbedderChoice } from '../vector/choose.js';
import type { Environment } from './environment.js';
import { UsageError } from './exit.js';

export type EmbedderKind = 'auto' | 'builtin' | 'ollama' | 'openai';

export const EMBEDDER_KINDS: readonly EmbedderKind[] = ['auto', 'builtin', 'ollama', 'openai'];

/** The help of --openai-base-url, the same in every command: it names its variable and the key's. */
export const OPENAI_BASE_URL_HELP = `OpenAI-compatible server (llama.cpp, LM Studio, vLLM, Ollama's /v1, a hosted API), e.g. http://127.0.0.1:8080/v1, for --embedder openai, --llm openai and an index built with one (default: OCVECTOR_OPENAI_BASE_URL; never the server an index records); an API key, if it needs one, from ${API_KEY_VARIABLE}`;

export interface EmbedderFlags {
  /** --embedder. */
  embedder?: EmbedderKind;
  /** --embedding-model. */
  embeddingModel?: string;
}

/**
 * The embedder the flags ask for, else OCVECTOR_EMBEDDER's; undefined when
 * neither says (the index's own, else auto). An OpenAI-compatible server
 * serves whatever models it has: there is no default to fall back on.
 */
export function embedderChoice(flags: EmbedderFlags, env: Environment): EmbedderChoice | undefined {
  const model = flags.embeddingModel;
  const kind = flags.embedder ?? (model ? undefined : env.embedder);
  if (kind === 'builtin') {
    if (model) throw new UsageError('--embedding-model names a model: it cannot go with --embedder builtin');
    return 'builtin';
  }
  if (kind === 'openai') {
    if (!model && !env.embeddingModel)
      throw new UsageError(
        '--embedder openai needs --embedding-model (or OCVECTOR_EMBEDDING_MODEL): the embedding model the server serves',
      );
    return { kind: 'openai', ...(model ? { model } : {}) };
  }
  if (kind === 'ollama' || model) return model ? { model } : 'ollama';
  return kind;
}
