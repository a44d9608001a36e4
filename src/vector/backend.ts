/**
 * An embedder backend: what makes the embedders of one kind (the built-in
 * one, an Ollama model, an OpenAI-compatible server's, an in-process
 * model). The ids of its embedders start with its name and a colon
 * (`builtin:v2:512`, `ollama:nomic-embed-text`), so that an index's recorded
 * id finds its backend again; backends.ts registers them.
 */
import type { Embedder } from './embedder.js';

export interface EmbedderBackend<Options extends object = object> {
  /**
   * What a choice names (`embedder: 'ollama'`, `{ kind: 'ollama', … }`), its
   * key in the options map (`embedderOptions.ollama`), and what the ids of
   * its embedders start with, before a colon.
   */
  readonly name: string;
  /** The embedder asked for by name, from the run's options for this backend (a choice's own over them). */
  create(options: Options): Embedder;
  /**
   * The embedder a recorded id names (`rest`: the id past `name:`), with the
   * run's options; undefined when this version cannot make it (its vectors
   * would not match the index's). The id is data from the index: it may name
   * a model, never where to send anything, so a server comes from `options`
   * alone (the user's), and a backend that has none to use throws
   * EmbedderError NOT_CONFIGURED naming the option to give.
   */
  fromId(rest: string, options: Options): Embedder | undefined;
  /**
   * Whether an index whose recorded id is `rest` was made by an older
   * version of this backend, which an indexer run rebuilds (re-embedding
   * costs only CPU) rather than refuses.
   */
  isOutdated?(rest: string, embedder: Embedder): boolean;
  /**
   * For a backend whose embedders can run on the indexer's worker threads
   * (CPU work, no server): the id a worker thread makes this embedder from
   * (`fromId` with no options), or undefined when this one cannot go there.
   * The workers know the backends registered in backends.ts, not those
   * registered at run time.
   */
  workerId?(embedder: Embedder): string | undefined;
  /**
   * True when computing a vector again costs less than keeping a second copy
   * of it (the built-in embedder: microseconds of CPU). The embedded store
   * then keeps such vectors once, in its FAISS file, and drops its own copy
   * of them at each checkpoint; a document seen again is embedded again.
   * Vectors of a model are kept in the database too, so that an unchanged
   * document is never sent to the model twice.
   */
  readonly recomputesCheaply?: boolean;
  /**
   * What a model name is to this backend, for the CLIs' --embedding-model:
   * 'refused' (it has no models), 'optional' (it has a default; the
   * default), or required, with what the model is ("the embedding model the
   * server serves"): the CLIs' choices, checks and help come from this.
   */
  readonly modelName?: 'refused' | 'optional' | { readonly required: string };
  /**
   * Deprecated, for the backends that came before the options map: their
   * options may also be given at the top level of an Indexer's or a
   * Searcher's options (`ollama: { … }`), under the backend's name; the
   * map's own win where both say (embedderOptionsOf).
   */
  readonly optionsAtTopLevel?: true;
}
