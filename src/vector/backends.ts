/**
 * The embedder backends, by name: the name is what a choice says, the key
 * of the backend's options in the one options map, and what the ids of its
 * embedders start with, before a colon (`ollama:nomic-embed-text`). A new
 * backend is one file (its EmbedderBackend, backend.ts) and one entry in
 * EMBEDDER_BACKENDS; its options type comes with it, and the CLIs offer it
 * (cli/embedder-choice.ts reads the registry). An application or a test
 * may register one at run time (registerEmbedderBackend); such a backend
 * runs on the calling thread only.
 */
import type { EmbedderBackend } from './backend.js';
import { builtinBackend } from './builtin-embedder.js';
import { EmbedderError, type Embedder } from './embedder.js';
import { ollamaBackend } from './ollama-embedder.js';
import { openaiBackend } from './openai-embedder.js';

export const EMBEDDER_BACKENDS = {
  builtin: builtinBackend,
  ollama: ollamaBackend,
  openai: openaiBackend,
} as const;

type Registered = typeof EMBEDDER_BACKENDS;
type OptionsOf<Backend> = Backend extends EmbedderBackend<infer Options> ? Options : never;

/** A registered backend's name; a backend registered at run time has a name of its own. */
export type EmbedderBackendName = keyof Registered | (string & {});

/**
 * The options of each backend, under its name: what to ask of each kind of
 * server (host or base URL, model, timeouts) whenever an embedder of that
 * kind is made, asked for by name or from an index's recorded id.
 */
export type EmbedderOptions = { readonly [Name in keyof Registered]?: OptionsOf<Registered[Name]> | undefined } & {
  readonly [name: string]: object | undefined;
};

const registered = new Map<string, EmbedderBackend<object>>(
  Object.values(EMBEDDER_BACKENDS).map((backend) => [backend.name, backend as EmbedderBackend<object>]),
);

/**
 * Adds a backend for this process: its embedders can then be asked for by
 * name and are made again from the ids an index recorded (searches
 * included). Throws when the name is taken or holds a colon.
 */
export function registerEmbedderBackend<Options extends object>(backend: EmbedderBackend<Options>): void {
  if (!backend.name || backend.name.includes(':') || registered.has(backend.name))
    throw new TypeError(`an embedder backend needs a name of its own, without a colon: "${backend.name}"`);
  registered.set(backend.name, backend as EmbedderBackend<object>);
}

/** The backend of this name; throws EmbedderError UNKNOWN_EMBEDDER for none. */
export function backendNamed(name: string): EmbedderBackend<object> {
  const backend = registered.get(name);
  if (!backend)
    throw new EmbedderError(
      `no embedder backend is named "${name}" (there are ${[...registered.keys()].join(', ')})`,
      'UNKNOWN_EMBEDDER',
    );
  return backend;
}

/** The backend an embedder id names, and the id past its name; undefined for an id of no registered backend. */
export function backendOfId(id: string): { backend: EmbedderBackend<object>; rest: string } | undefined {
  const colon = id.indexOf(':');
  const backend = colon < 0 ? undefined : registered.get(id.slice(0, colon));
  return backend && { backend, rest: id.slice(colon + 1) };
}

/** Whether an embedder's vectors cost less to compute again than to keep twice (EmbedderBackend.recomputesCheaply). */
export function recomputesCheaply(embedderId: string): boolean {
  return backendOfId(embedderId)?.backend.recomputesCheaply === true;
}

/** The options of one backend in the map (none: an empty object). */
export function optionsFor(options: EmbedderOptions, name: string): object {
  return options[name] ?? {};
}

/** The backends of this version whose options may also be given at the top level (EmbedderBackend.optionsAtTopLevel). */
type AtTopLevel = {
  [Name in keyof Registered]: Registered[Name] extends { readonly optionsAtTopLevel: true } ? Name : never;
}[keyof Registered];

/** An Indexer's or a Searcher's options, as far as embedderOptionsOf reads them. */
export type WithEmbedderOptions = { embedderOptions?: EmbedderOptions | undefined } & {
  [Name in AtTopLevel]?: EmbedderOptions[Name];
};

/**
 * The one options map from an Indexer's or a Searcher's options, with the
 * fields that came before it (deprecated: those of the backends marked
 * optionsAtTopLevel) under their backends' names; the map's own options
 * win where both name one.
 */
export function embedderOptionsOf(options: WithEmbedderOptions): EmbedderOptions {
  const { embedderOptions = {} } = options;
  const merged: Record<string, object | undefined> = { ...embedderOptions };
  for (const backend of Object.values(EMBEDDER_BACKENDS) as EmbedderBackend<object>[]) {
    if (!backend.optionsAtTopLevel) continue;
    const before = (options as Readonly<Record<string, object | undefined>>)[backend.name];
    const own = embedderOptions[backend.name];
    if (before || own) merged[backend.name] = { ...before, ...own };
  }
  return merged;
}

/** The names of the backends registered, in the order they were (this version's first). */
export function embedderBackendNames(): string[] {
  return [...registered.keys()];
}

/** The backends registered, in the order they were (this version's first). */
export function embedderBackends(): EmbedderBackend<object>[] {
  return [...registered.values()];
}

/** Whether `embedder` can run on the indexer's worker threads, and the id they make it from. */
export function workerIdOf(embedder: Embedder): string | undefined {
  return backendOfId(embedder.id)?.backend.workerId?.(embedder);
}
