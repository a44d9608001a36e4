/**
 * Which embedder an index uses. The one it was built with, if it has one;
 * otherwise the one asked for; otherwise an Ollama model when a local
 * server answers and has it, else the built-in embedder (no model at all).
 */
import { ollamaClient } from '../analysis/llm/client.js';
import { resolveOllamaHost } from '../analysis/llm/config.js';
import { BUILTIN_EMBEDDER_VERSION, BuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { DEFAULT_EMBEDDING_MODEL, OllamaEmbedder, type OllamaEmbedderOptions } from './ollama-embedder.js';

/** An embedder, or how to make one: 'builtin', 'ollama', or Ollama options. */
export type EmbedderChoice = Embedder | 'builtin' | 'ollama' | 'auto' | OllamaEmbedderOptions;

/**
 * Makes the embedder a recorded id names (`builtin:v2:512`,
 * `ollama:nomic-embed-text`); undefined when this version cannot (another
 * version of the built-in embedder: its vectors would not match).
 */
export function embedderFromId(id: string, ollama: OllamaEmbedderOptions = {}): Embedder | undefined {
  const builtin = parseBuiltinId(id);
  if (builtin)
    return builtin.version === BUILTIN_EMBEDDER_VERSION
      ? new BuiltinEmbedder({ dimension: builtin.dimension })
      : undefined;
  if (id.startsWith('ollama:')) return new OllamaEmbedder({ ...ollama, model: id.slice('ollama:'.length) });
  return undefined;
}

/**
 * The embedder for a run. `ollama` holds what to ask of Ollama (host,
 * model, timeouts) whenever an Ollama embedder is made: asked for, made
 * from the recorded id (which names its model), or chosen by 'auto'.
 */
export async function chooseEmbedder(
  choice: EmbedderChoice = 'auto',
  recordedId: string | undefined,
  ollama: OllamaEmbedderOptions = {},
): Promise<Embedder> {
  if (typeof choice === 'object' && 'embedDocuments' in choice) return choice;
  if (choice === 'builtin') return new BuiltinEmbedder();
  if (choice === 'ollama') return new OllamaEmbedder(ollama);
  if (typeof choice === 'object') return new OllamaEmbedder({ ...ollama, ...choice });
  // A recorded id this version cannot make (an older built-in embedder) gets the current one.
  if (recordedId) return embedderFromId(recordedId, ollama) ?? new BuiltinEmbedder();
  const model = ollama.model ?? DEFAULT_EMBEDDING_MODEL;
  return (await ollamaHasModel(resolveOllamaHost(ollama.host), model))
    ? new OllamaEmbedder({ ...ollama, model })
    : new BuiltinEmbedder();
}

/**
 * The Ollama options to use on an index: the host asked for, else the one
 * the index recorded (where its embedder was when it was last updated).
 */
export function withRecordedHost(
  ollama: OllamaEmbedderOptions | undefined,
  recordedHost: string | undefined,
): OllamaEmbedderOptions {
  if (ollama?.host || !recordedHost) return ollama ?? {};
  return { ...ollama, host: recordedHost };
}

function parseBuiltinId(id: string): { version: number; dimension: number } | undefined {
  const match = /^builtin:v(\d+):(\d+)$/.exec(id);
  return match ? { version: Number(match[1]), dimension: Number(match[2]) } : undefined;
}

/**
 * An index built by an older version of the built-in embedder: re-embedding
 * it costs only CPU, so an indexer run rebuilds it instead of refusing.
 */
export function isOutdatedBuiltin(recordedId: string, embedder: Embedder): boolean {
  const recorded = parseBuiltinId(recordedId);
  return recorded !== undefined && embedder instanceof BuiltinEmbedder && recorded.version < BUILTIN_EMBEDDER_VERSION;
}

/** True when a server answers at `host` within a second and lists the model. */
export async function ollamaHasModel(host: string, model: string): Promise<boolean> {
  try {
    // Through the client: its answer is size-capped and the deadline covers reading it.
    const { models } = (await ollamaClient(host, { timeoutMs: 1_000 }).list()) as { models?: { name?: string }[] };
    const wanted = model.includes(':') ? model : `${model}:latest`;
    return (models ?? []).some((m) => m.name === model || m.name === wanted);
  } catch {
    return false;
  }
}
