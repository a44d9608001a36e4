/**
 * Which embedder an index uses. The one asked for; otherwise the one it was
 * built with, if it has one; otherwise an Ollama model when a local server
 * answers and has it, else the built-in embedder (no model at all). An
 * OpenAI-compatible server is used only when the user names its base URL:
 * nothing probes for one. Where data goes is the user's choice alone: an
 * index's recorded id may pick the model, its recorded host is never asked.
 * The backends themselves are in backends.ts.
 */
import { resolveOllamaHost } from '../models/config.js';
import { ollamaHasModel } from '../models/ollama-has-model.js';
import { backendNamed, backendOfId, type EmbedderBackendName, type EmbedderOptions, optionsFor } from './backends.js';
import { BuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { DEFAULT_EMBEDDING_MODEL, OllamaEmbedder, type OllamaEmbedderOptions } from './ollama-embedder.js';
import type { OpenAIEmbedderOptions } from './openai-embedder.js';

export { ollamaHasModel };

/**
 * An embedder, or how to make one: 'auto', a backend's name ('builtin',
 * 'ollama', 'openai', or one registered), or options of one backend, named
 * by `kind` (Ollama's without one); any backend by `kind` with a model
 * (the rest of its options from the options map).
 */
export type EmbedderChoice =
  | Embedder
  | 'auto'
  | EmbedderBackendName
  | OllamaEmbedderOptions
  | (OpenAIEmbedderOptions & { kind: 'openai' })
  | { kind: EmbedderBackendName; model?: string };

/** @deprecated The options map is EmbedderOptions; this is its old name. */
export type EmbedderServers = EmbedderOptions;

/**
 * Makes the embedder a recorded id names (`builtin:v2:512`,
 * `ollama:nomic-embed-text`, `openai:bge-m3`) with its backend's options;
 * undefined when no backend can (another version of the built-in embedder:
 * its vectors would not match; a backend not registered in this process).
 * The server is the one `options` names (Ollama: else the local default);
 * an OpenAI-compatible model without a base URL there throws EmbedderError
 * NOT_CONFIGURED.
 */
export function embedderFromId(id: string, options: EmbedderOptions = {}): Embedder | undefined {
  const found = backendOfId(id);
  return found?.backend.fromId(found.rest, optionsFor(options, found.backend.name));
}

/**
 * The embedder for a run. `options` holds what to ask of each backend (host
 * or base URL, model, timeouts) whenever an embedder of it is made: asked
 * for, made from the recorded id (which names its model, not its server),
 * or chosen by 'auto' (Ollama only).
 */
export async function chooseEmbedder(
  choice: EmbedderChoice = 'auto',
  recordedId: string | undefined,
  options: EmbedderOptions = {},
): Promise<Embedder> {
  if (typeof choice === 'object' && 'embedDocuments' in choice) return choice;
  if (typeof choice === 'string' && choice !== 'auto') return backendNamed(choice).create(optionsFor(options, choice));
  if (typeof choice === 'object') {
    const kind = choice.kind ?? 'ollama';
    return backendNamed(kind).create({ ...optionsFor(options, kind), ...choice });
  }
  // A recorded id this version cannot make (an older built-in embedder) gets the current one.
  if (recordedId) return embedderFromId(recordedId, options) ?? new BuiltinEmbedder();
  const ollama = options.ollama ?? {};
  const model = ollama.model ?? DEFAULT_EMBEDDING_MODEL;
  return (await ollamaHasModel(resolveOllamaHost(ollama.host), model))
    ? new OllamaEmbedder({ ...ollama, model })
    : new BuiltinEmbedder();
}

/**
 * An index built by an older version of its backend (the built-in
 * embedder's): re-embedding it costs only CPU, so an indexer run rebuilds
 * it instead of refusing.
 */
export function isOutdatedIndex(recordedId: string, embedder: Embedder): boolean {
  const found = backendOfId(recordedId);
  return found?.backend.isOutdated?.(found.rest, embedder) ?? false;
}
