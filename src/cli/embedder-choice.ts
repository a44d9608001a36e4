/**
 * Which embedder the commands that index (oc-vector-index, the MCP server's
 * reindex) ask for, from their flags. The kinds, what --embedding-model is
 * to each, and the help that says so come from the embedder backends
 * registered (vector/backends.ts): a new backend needs nothing here.
 */
import { API_KEY_VARIABLE } from '../models/openai-client.js';
import { backendNamed, embedderBackendNames, embedderBackends, type EmbedderBackendName } from '../vector/backends.js';
import type { EmbedderChoice } from '../vector/choose.js';
import type { Environment } from './environment.js';
import { UsageError } from './exit.js';

export type EmbedderKind = 'auto' | EmbedderBackendName;

/** What --embedder offers: auto, then each backend registered (this version's first). */
export function embedderKinds(): EmbedderKind[] {
  return ['auto', ...embedderBackendNames()];
}

/** The --embedder flags that need --embedding-model: "--embedder openai" (joined by "or"). */
export function embeddingModelNeededWith(): string {
  return embedderBackends()
    .filter((backend) => typeof backend.modelName === 'object')
    .map((backend) => `--embedder ${backend.name}`)
    .join(' or ');
}

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
 * neither says (the index's own, else auto). A model alone names one of the
 * default backend's (a choice without kind: Ollama's). A backend that serves
 * whatever models it has (an OpenAI-compatible server) has no default to
 * fall back on; one with no models refuses a model name.
 */
export function embedderChoice(flags: EmbedderFlags, env: Environment): EmbedderChoice | undefined {
  const model = flags.embeddingModel;
  const kind = flags.embedder ?? (model ? undefined : env.embedder);
  if (kind === undefined || kind === 'auto') return model ? { model } : kind;
  const modelName = backendNamed(kind).modelName ?? 'optional';
  if (modelName === 'refused') {
    if (model) throw new UsageError(`--embedding-model names a model: it cannot go with --embedder ${kind}`);
    return kind;
  }
  if (typeof modelName === 'object') {
    if (!model && !env.embeddingModel)
      throw new UsageError(
        `--embedder ${kind} needs --embedding-model (or OCVECTOR_EMBEDDING_MODEL): ${modelName.required}`,
      );
    return { kind, ...(model ? { model } : {}) };
  }
  return model ? { kind, model } : kind;
}
