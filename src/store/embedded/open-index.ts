/**
 * Opens an existing index for reading: the database (read-only) and the
 * FAISS index brought level with it in memory. Searching never writes.
 */
import { FaissError } from '../../native/errors.js';
import { StoreError } from './database.js';
import { IndexStore } from './index-store.js';
import type { EmbedderRecord } from '../rows.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from './vector-file.js';

export interface OpenedIndex {
  store: IndexStore;
  vectors: VectorIndex;
  embedder: EmbedderRecord;
  close(): void;
}

/** An index opened without its vectors: the native addon could not load, or FAISS cannot hold them. */
export interface OpenedWithoutVectors extends Omit<OpenedIndex, 'vectors'> {
  vectors: undefined;
  /** Why there are no vectors (the addon's own explanation, first line). */
  vectorsProblem: string;
}

export interface OpenIndexOptions extends VectorIndexOptions {
  onEvent?: (event: VectorIndexEvent) => void;
  /**
   * When the vectors cannot be had (the native FAISS addon cannot load, the
   * index records a dimension FAISS cannot take, FAISS fails to build them),
   * open the database alone and say why, instead of throwing: a searcher
   * then answers from the lexical index.
   */
  withoutVectors?: boolean;
}

export async function openIndex(
  indexDir: string,
  options?: OpenIndexOptions & { withoutVectors?: false },
): Promise<OpenedIndex>;
export async function openIndex(
  indexDir: string,
  options: OpenIndexOptions,
): Promise<OpenedIndex | OpenedWithoutVectors>;
export async function openIndex(
  indexDir: string,
  options: OpenIndexOptions = {},
): Promise<OpenedIndex | OpenedWithoutVectors> {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    const embedder = store.embedder;
    if (!embedder) throw new StoreError(`the index at ${indexDir} is empty: run oc-vector-index first`, 'NOT_FOUND');
    // One read transaction: generation, rows and vectors all come from the same commit.
    let vectors: VectorIndex;
    try {
      vectors = await store.readSnapshot(() => VectorIndex.open(store, embedder, options, options.onEvent));
    } catch (error) {
      if (!(options.withoutVectors && error instanceof FaissError)) throw error;
      const vectorsProblem = error.message.split('\n')[0]!.replace(/^ocvector: /, '');
      return { store, vectors: undefined, vectorsProblem, embedder, close: () => store.close() };
    }
    return {
      store,
      vectors,
      embedder,
      close() {
        vectors.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}
