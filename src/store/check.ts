/**
 * Checks that the database and the FAISS index agree: every element row has
 * its vector, and the index holds nothing else. Used after a crash, by
 * tests, and by `oc-vector-index --check`.
 */
import type { IndexStore } from './store.js';
import type { VectorIndex } from './vector-file.js';

export interface ConsistencyReport {
  ok: boolean;
  elements: number;
  vectors: number;
  /** Element rows with no vector in the index (ids checked where the index can tell). */
  missing: number[];
}

export async function checkConsistency(store: IndexStore, vectorIndex: VectorIndex): Promise<ConsistencyReport> {
  const ids = store.vectorIds();
  const missing: number[] = [];
  if (vectorIndex.index.hasIds) {
    // An id map answers by id: each row is looked up.
    for (const id of ids) {
      try {
        await vectorIndex.index.reconstruct(id);
      } catch {
        missing.push(id);
      }
    }
  }
  // With every row present, equal counts leave no room for vectors without a row.
  const vectors = vectorIndex.ntotal;
  return { ok: missing.length === 0 && vectors === ids.length, elements: ids.length, vectors, missing };
}
