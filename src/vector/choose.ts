/**
 * Which embedder an index uses. The one it was built with, if it has one;
 * otherwise the one asked for; otherwise an Ollama model when a local
 * server answers and has it, else the built-in embedder (no model at all).
 * An OpenAI-compatible server is used only when asked for (or recorded):
 * nothing probes for one. The backends themselves are in backends.ts.
 */
import { accepts } from '../models/accepts.js';
import { ollamaClient } from '../models/ollama-client.js';
import { resolveOllamaHost } from '../models/config.js';
import { backendNamed, backendOfId, type EmbedderBackendName, type EmbedderOptions, optionsFor } from './backends.js';
import { BuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { DEFAULT_EMBEDDING_MODEL, OllamaEmbedder, type OllamaEmbedderOptions } from './ollama-embedder.js';
import type { OpenAIEmbedderOptions } from './openai-embedder.js';

/**
 * An embedder, or how to make one: 'auto', a backend's name ('builtin',
 * 'ollama', 'openai', or one registered), or options of one backend, named
 * by `kind` (Ollama's without one).
 */
export type EmbedderChoice =
  | Embedder
  | 'auto'
  | EmbedderBackendName
  | OllamaEmbedderOptions
  | (OpenAIEmbedderOptions & { kind: 'openai' });

/** @deprecated The options map is EmbedderOptions; this is its old name. */
export type EmbedderServers = EmbedderOptions;

/**
 * Makes the embedder a recorded id names (`builtin:v2:512`,
 * `ollama:nomic-embed-text`, `openai:bge-m3`) with its backend's options;
 * undefined when no backend can (another version of the built-in embedder:
 * its vectors would not match; a backend not registered in this process).
 */
export function embedderFromId(id: string, options: EmbedderOptions = {}): Embedder | undefined {
  const found = backendOfId(id);
  return found?.backend.fromId(found.rest, optionsFor(options, found.backend.name));
}

/**
 * The embedder for a run. `options` holds what to ask of each backend (host
 * or base URL, model, timeouts) whenever an embedder of it is made: asked
 * for, made from the recorded id (which names its model), or chosen by
 * 'auto' (Ollama only).
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
 * The options to use on an index: the server asked for, else the one the
 * index recorded (where its embedder was when it was last updated), for the
 * backend its recorded id names.
 */
export function withRecordedHost(
  options: EmbedderOptions,
  recordedId: string | undefined,
  recordedHost: string | undefined,
): EmbedderOptions {
  const found = recordedId === undefined ? undefined : backendOfId(recordedId);
  if (!recordedHost || !found?.backend.withRecordedHost) return options;
  const { name } = found.backend;
  return { ...options, [name]: found.backend.withRecordedHost(optionsFor(options, name), recordedHost) };
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

/** True when a server answers at `host` within a second and lists the model. */
export async function ollamaHasModel(host: string, model: string): Promise<boolean> {
  // Nothing listening (no Ollama here): known without loading the client.
  if (!(await accepts(host, 1_000))) return false;
  try {
    // Through the client: its answer is size-capped and the deadline covers reading it.
    const { models } = (await ollamaClient(host, { timeoutMs: 1_000 }).list()) as { models?: { name?: string }[] };
    const wanted = model.includes(':') ? model : `${model}:latest`;
    return (models ?? []).some((m) => m.name === model || m.name === wanted);
  } catch {
    return false;
  }
}
