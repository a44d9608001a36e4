/**
 * Opens an existing index for reading: the database (read-only) and the
 * FAISS index brought level with it in memory. Searching never writes.
 */
import { FaissError } from '../native/errors.js';
import { builtElsewhere, StoreError } from './database.js';
import { IndexStore, type EmbedderRecord } from './store.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from './vector-file.js';

export interface OpenedIndex {
  store: IndexStore;
  vectors: VectorIndex;
  embedder: EmbedderRecord;
  close(): void;
}

/** An index opened without its vectors: the native addon could not load. */
export interface OpenedWithoutVectors extends Omit<OpenedIndex, 'vectors'> {
  vectors: undefined;
  /** Why there are no vectors (the addon's own explanation, first line). */
  vectorsProblem: string;
}

export interface OpenIndexOptions extends VectorIndexOptions {
  onEvent?: (event: VectorIndexEvent) => void;
  /**
   * When the native FAISS addon cannot load, open the database alone and say
   * why, instead of throwing: a searcher then answers from the lexical index.
   */
  withoutAddon?: boolean;
}

export async function openIndex(
  indexDir: string,
  options?: OpenIndexOptions & { withoutAddon?: false },
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
    // An index copied or moved into another root describes that root's files, not these.
    const elsewhere = store.builtForElsewhere;
    if (elsewhere) throw builtElsewhere(indexDir, elsewhere);
    // One read transaction: generation, rows and vectors all come from the same commit.
    let vectors: VectorIndex;
    try {
      vectors = await store.readSnapshot(() => VectorIndex.open(store, embedder, options, options.onEvent));
    } catch (error) {
      if (!(options.withoutAddon && error instanceof FaissError && error.code === 'ADDON_LOAD_FAILED')) throw error;
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
