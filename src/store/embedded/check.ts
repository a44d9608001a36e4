/**
 * Checks that the database and the FAISS index agree: every element row has
 * its vector, the vector is the one the database holds for the element's
 * document where it holds one (the built-in embedder's are kept in the
 * index alone once checkpointed: vector-file.ts), and the index holds
 * nothing else. Nothing in the library calls
 * it: the tests check every index they write with it (test/helpers/index-state.ts), and it
 * is exported (ocvector/internal) for a user who wants to check an index by hand.
 */
import type { IndexStore } from './index-store.js';
import type { VectorIndex } from './vector-file.js';

export interface ConsistencyReport {
  ok: boolean;
  elements: number;
  vectors: number;
  /** Element rows with no vector in the index (ids checked where the index can tell). */
  missing: number[];
  /** Element rows whose vector in the index is not the database's vector for their document (an index file of another database). */
  mismatched: number[];
}

export async function checkConsistency(store: IndexStore, vectorIndex: VectorIndex): Promise<ConsistencyReport> {
  const rows = store.elementVectors();
  const embedder = store.embedder;
  const missing: number[] = [];
  const mismatched: number[] = [];
  if (vectorIndex.index.hasIds) {
    // An id map answers by id: each row is looked up, and its vector compared with the database's.
    for (const { id, hash } of rows) {
      let vector: Float32Array;
      try {
        vector = await vectorIndex.index.reconstruct(id);
      } catch {
        missing.push(id);
        continue;
      }
      const expected = embedder ? store.getEmbedding(embedder.id, hash) : undefined;
      if (expected && !sameVector(vector, expected)) mismatched.push(id);
    }
  }
  // With every row present, equal counts leave no room for vectors without a row.
  const vectors = vectorIndex.ntotal;
  return {
    ok: missing.length === 0 && mismatched.length === 0 && vectors === rows.length,
    elements: rows.length,
    vectors,
    missing,
    mismatched,
  };
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i]! - b[i]!) > 1e-6) return false;
  return true;
}
