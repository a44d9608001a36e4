/**
 * A rebuild's reads of the vectors: a page at a time, so that a large index
 * is never in memory twice (the rows, then FAISS's copy), from the database
 * and, for the vectors it no longer keeps, from the index being replaced;
 * and the sample an IVF index is trained on.
 */
import type { FaissIndex } from '../../native/faiss-index.js';
import type { EmbedderRecord } from '../rows.js';
import type { IndexStore } from './index-store.js';
import type { VectorRowsRead } from './vector-rows.js';

/**
 * Vectors an IVF index is trained on, per list (FAISS asks for at least 39).
 * The sample and FAISS's copy of it are in memory while it trains: training
 * on every vector is what put a first index of a large repository over 1 GB,
 * for little recall (`npm run bench:ivf-training`; the figures are in
 * docs/performance.md, "A large repository").
 */
export const TRAINING_VECTORS_PER_LIST = 40;

/** Rows of vectors a rebuild reads at once: 32 MiB of 512-dimension vectors. */
const REBUILD_PAGE_ROWS = 16_384;

/** Where a rebuild's pages come from, besides the database. */
export interface PageSources {
  /** Rows of vectors read at once. */
  rows?: number;
  /**
   * The index a rebuild replaces: the vectors the database no longer keeps
   * (vector-rows.ts: those of an embedder that recomputes cheaply, once
   * checkpointed) are read back from it.
   */
  previous?: FaissIndex | undefined;
}

/**
 * Every live element's vector, a page of `rows` elements at a time, in
 * vector_id order, except that a page's vectors read back from `previous`
 * come after those the database holds. Ids found in neither stay in
 * `missing`.
 */
export async function* vectorPages(
  store: IndexStore,
  embedder: EmbedderRecord,
  { rows = REBUILD_PAGE_ROWS, previous }: PageSources = {},
): AsyncGenerator<VectorRowsRead> {
  for (let afterId = -1; ; ) {
    const page = store.vectors(embedder, -1, { afterId, limit: rows });
    if (page.lastId === -1) return;
    yield previous && page.missing.length > 0 ? await readBack(page, previous, embedder.dimension) : page;
    afterId = page.lastId;
  }
}

/** A page with the vectors of its missing ids that `previous` holds. */
async function readBack(page: VectorRowsRead, previous: FaissIndex, d: number): Promise<VectorRowsRead> {
  const { vectors, found } = await previous.reconstructMany(BigInt64Array.from(page.missing, BigInt));
  const kept = page.ids.length;
  const back = found.reduce((sum, flag) => sum + flag, 0);
  const ids = new BigInt64Array(kept + back);
  const rows = new Float32Array((kept + back) * d);
  ids.set(page.ids);
  rows.set(page.vectors);
  const missing: number[] = [];
  let at = kept;
  for (const [i, id] of page.missing.entries()) {
    if (!found[i]) {
      missing.push(id);
      continue;
    }
    ids[at] = BigInt(id);
    rows.set(vectors.subarray(i * d, (i + 1) * d), at++ * d);
  }
  return { ids, vectors: rows, missing, lastId: page.lastId };
}

/**
 * What an IVF index is trained on: every vector when there are at most
 * `wanted`, else `wanted` of them spread evenly over the pages, read a page
 * at a time so that only the sample is held.
 */
export async function readTrainingSample(
  store: IndexStore,
  embedder: EmbedderRecord,
  total: number,
  wanted: number,
  sources: PageSources = {},
): Promise<Float32Array> {
  const rows = Math.min(total, wanted);
  const d = embedder.dimension;
  const sample = new Float32Array(rows * d);
  const step = total / rows;
  let taken = 0;
  let ordinal = 0;
  for await (const page of vectorPages(store, embedder, sources)) {
    for (let row = 0; row < page.ids.length && taken < rows; row++, ordinal++) {
      if (ordinal !== Math.floor(taken * step)) continue;
      sample.set(page.vectors.subarray(row * d, (row + 1) * d), taken++ * d);
    }
    if (taken === rows) break; // the pages after hold no vector of the sample
  }
  return sample.subarray(0, taken * d);
}
