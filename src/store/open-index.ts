/**
 * Opens an existing index for reading: the database (read-only) and the
 * FAISS index brought level with it in memory. Searching never writes.
 */
import { builtElsewhere, StoreError } from './database.js';
import { IndexStore, type EmbedderRecord } from './store.js';
import { VectorIndex, type VectorIndexEvent, type VectorIndexOptions } from './vector-file.js';

export interface OpenedIndex {
  store: IndexStore;
  vectors: VectorIndex;
  embedder: EmbedderRecord;
  close(): void;
}

export async function openIndex(
  indexDir: string,
  options: VectorIndexOptions & { onEvent?: (event: VectorIndexEvent) => void } = {},
): Promise<OpenedIndex> {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    const embedder = store.embedder;
    if (!embedder) throw new StoreError(`the index at ${indexDir} is empty: run oc-vector-index first`, 'NOT_FOUND');
    // An index copied or moved into another root describes that root's files, not these.
    const elsewhere = store.builtForElsewhere;
    if (elsewhere) throw builtElsewhere(indexDir, elsewhere);
    // One read transaction: generation, rows and vectors all come from the same commit.
    const vectors = await store.readSnapshot(() => VectorIndex.open(store, embedder, options, options.onEvent));
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
