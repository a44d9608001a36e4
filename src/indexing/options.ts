/** What an Indexer and each of its runs are asked to do, and the defaults for what they leave out. */
import type { ContentLimits } from '../analysis/content.js';
import type { Enricher } from '../analysis/analyzer.js';
import type { LlmChoice } from '../analysis/llm/choose-enricher.js';
import type { StoreChoice, VectorIndexOptions } from '../store/open.js';
import type { EmbedderOptions } from '../vector/backends.js';
import type { EmbedderChoice } from '../vector/choose.js';
import type { OllamaEmbedderOptions } from '../vector/ollama-embedder.js';
import type { OpenAIEmbedderOptions } from '../vector/openai-embedder.js';
import type { IndexEvent } from './events.js';
import type { FileAnalyzer } from './pool.js';

export interface IndexerOptions {
  /** A file or directory; the root (enclosing git work tree, else this directory) is found from it. */
  path: string;
  /** The root, when not the one found from `path` (several paths indexed under their common root). `path` must lie inside it. */
  root?: string;
  /** Where the embedded index lives. Default `<root>/.ocvector`. Not read when `store` names a shared store. */
  indexDir?: string;
  /**
   * The shared PostgreSQL store to index into instead of the embedded index:
   * `postgres://user@host:port/db`, or `{ url, schema }` (default schema
   * `ocvector`). It needs PostgreSQL 15 or later with pgvector, and creates
   * and migrates its schema itself.
   */
  store?: StoreChoice;
  /**
   * The repository's name in the index (default: the root directory's
   * name). An index may hold many repositories (a shared `indexDir`); a run
   * touches only its own. A name indexed before from another directory is
   * the same repository checked out elsewhere (a CI workspace).
   */
  repo?: string;
  /**
   * Default: the index's own embedder; for a new index Ollama when it
   * answers, else the built-in one. An OpenAI-compatible server only when
   * named ('openai', or options with `kind: 'openai'`). A backend registered
   * at run time (vector/backends.ts) by its name.
   */
  embedder?: EmbedderChoice;
  /**
   * LLM analysis: false (syntax tree only), true, Ollama options, or
   * OpenAI-compatible options (`kind: 'openai'`). Default true (Ollama).
   */
  llm?: LlmChoice;
  /**
   * What to ask of each embedder backend, under its name, when an embedder
   * is made from a name ('auto', 'ollama', the index's recorded id):
   * `ollama` (host, model, timeouts; without a host, the local default: its
   * host and its timeout are also the analysis model's, unless `llm` names
   * them), `openai` (base URL, API key, model, timeouts; without a base URL
   * an index of such a model is refused, never sent to the server it
   * recorded; its address, key and timeout are also an OpenAI-compatible
   * analysis model's, unless `llm` names them), a registered backend's own.
   */
  embedderOptions?: EmbedderOptions;
  /** @deprecated `embedderOptions.ollama`, which wins where both are given. */
  ollama?: OllamaEmbedderOptions;
  /** @deprecated `embedderOptions.openai`, which wins where both are given. */
  openai?: OpenAIEmbedderOptions;
  /**
   * The enricher to use instead of the Ollama one `llm` describes (then
   * `llm` is not read). It keeps its own cache of answers.
   */
  enricher?: Enricher;
  /**
   * Analyses files instead of the indexer's own pool of worker threads
   * (then `threads` and `limits` are not read). The caller closes it.
   */
  analyzer?: FileAnalyzer;
  /** Forget every file and element first (keeps the caches): needed to change embedder. */
  rebuild?: boolean;
  /**
   * A first index of a linked git worktree in its default place starts from a copy of
   * the main worktree's index, and reads again only what differs (seed.ts). Default true.
   */
  seed?: boolean;
  /** Only files git reports changed since this revision (plus untracked ones). */
  since?: string;
  /** Analysis threads. Default: the number of cores. */
  threads?: number;
  limits?: Partial<ContentLimits>;
  vectorIndex?: VectorIndexOptions;
  /** Documents per embedding request, and requests in flight. */
  embeddingBatchSize?: number;
  embeddingConcurrency?: number;
  /** Wait this long for another indexer of the same index. Default 0: fail at once. */
  lockWaitMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: IndexEvent) => void;
}

export interface RunOptions {
  /** Only these files (root-relative or absolute); missing ones are removed from the index. */
  paths?: readonly string[];
  since?: string;
  rebuild?: boolean;
  signal?: AbortSignal;
}

/** What an Indexer does when its options leave something out. */
export const INDEXER_DEFAULTS = {
  llm: true,
  /** Fail at once when another indexer holds the index. */
  lockWaitMs: 0,
  /** Documents per embedding request to a server: enough to amortise its round trip. */
  embeddingBatchSize: 32,
  /** Documents per call to an in-process embedder, which has no round trip. */
  inProcessEmbeddingBatchSize: 256,
  /** Embedding requests in flight. */
  embeddingConcurrency: 2,
} as const;
