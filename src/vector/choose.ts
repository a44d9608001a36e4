/**
 * Which embedder an index uses. The one it was built with, if it has one;
 * otherwise the one asked for; otherwise an Ollama model when a local
 * server answers and has it, else the built-in embedder (no model at all).
 * An OpenAI-compatible server is used only when asked for (or recorded):
 * nothing probes for one.
 */
import { ollamaClient } from '../models/ollama-client.js';
import { resolveOllamaHost } from '../models/config.js';
import { BUILTIN_EMBEDDER_VERSION, BuiltinEmbedder } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import { DEFAULT_EMBEDDING_MODEL, OllamaEmbedder, type OllamaEmbedderOptions } from './ollama-embedder.js';
import { OPENAI_ID_PREFIX, OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai-embedder.js';

/**
 * An embedder, or how to make one: 'builtin', 'ollama', 'openai' (with the
 * server options of that kind), 'auto', or options of one kind (Ollama's
 * unless `kind: 'openai'`).
 */
export type EmbedderChoice =
  | Embedder
  | 'builtin'
  | 'ollama'
  | 'openai'
  | 'auto'
  | OllamaEmbedderOptions
  | (OpenAIEmbedderOptions & { kind: 'openai' });

/** What to ask of each kind of server whenever an embedder of that kind is made from a name. */
export interface EmbedderServers {
  ollama?: OllamaEmbedderOptions | undefined;
  openai?: OpenAIEmbedderOptions | undefined;
}

/**
 * Makes the embedder a recorded id names (`builtin:v2:512`,
 * `ollama:nomic-embed-text`, `openai:bge-m3`); undefined when this version
 * cannot (another version of the built-in embedder: its vectors would not
 * match).
 */
export function embedderFromId(id: string, servers: EmbedderServers = {}): Embedder | undefined {
  const builtin = parseBuiltinId(id);
  if (builtin)
    return builtin.version === BUILTIN_EMBEDDER_VERSION
      ? new BuiltinEmbedder({ dimension: builtin.dimension })
      : undefined;
  if (id.startsWith('ollama:')) return new OllamaEmbedder({ ...servers.ollama, model: id.slice('ollama:'.length) });
  if (id.startsWith(OPENAI_ID_PREFIX))
    return new OpenAIEmbedder({ ...servers.openai, model: id.slice(OPENAI_ID_PREFIX.length) });
  return undefined;
}

/**
 * The embedder for a run. `servers` holds what to ask of each kind of
 * server (host or base URL, model, timeouts) whenever an embedder of that
 * kind is made: asked for, made from the recorded id (which names its
 * model), or chosen by 'auto' (Ollama only).
 */
export async function chooseEmbedder(
  choice: EmbedderChoice = 'auto',
  recordedId: string | undefined,
  servers: EmbedderServers = {},
): Promise<Embedder> {
  const { ollama = {}, openai = {} } = servers;
  if (typeof choice === 'object' && 'embedDocuments' in choice) return choice;
  if (choice === 'builtin') return new BuiltinEmbedder();
  if (choice === 'ollama') return new OllamaEmbedder(ollama);
  if (choice === 'openai') return new OpenAIEmbedder(openai);
  if (typeof choice === 'object')
    return choice.kind === 'openai'
      ? new OpenAIEmbedder({ ...openai, ...choice })
      : new OllamaEmbedder({ ...ollama, ...choice });
  // A recorded id this version cannot make (an older built-in embedder) gets the current one.
  if (recordedId) return embedderFromId(recordedId, servers) ?? new BuiltinEmbedder();
  const model = ollama.model ?? DEFAULT_EMBEDDING_MODEL;
  return (await ollamaHasModel(resolveOllamaHost(ollama.host), model))
    ? new OllamaEmbedder({ ...ollama, model })
    : new BuiltinEmbedder();
}

/**
 * The server options to use on an index: the address asked for, else the
 * one the index recorded (where its embedder was when it was last
 * updated), for the kind of server its recorded id names.
 */
export function withRecordedHost(
  servers: EmbedderServers,
  recordedId: string | undefined,
  recordedHost: string | undefined,
): EmbedderServers {
  if (!recordedHost) return servers;
  if (recordedId?.startsWith(OPENAI_ID_PREFIX))
    return servers.openai?.baseUrl ? servers : { ...servers, openai: { ...servers.openai, baseUrl: recordedHost } };
  return servers.ollama?.host ? servers : { ...servers, ollama: { ...servers.ollama, host: recordedHost } };
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
