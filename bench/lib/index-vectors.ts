/**
 * Every vector of an embedded index, as a rebuild reads them: from the
 * database, and those it no longer keeps (the built-in embedder's, once
 * checkpointed) from the index's FAISS file.
 */
// An internal bench helper: the embedded store's vectors, read from its database and FAISS file as a rebuild reads them.
import { openIndex } from '../../src/store/embedded/open-index.js';
import type { EmbedderRecord } from '../../src/store/rows.js';
import { vectorPages } from '../../src/store/embedded/vector-pages.js';

export interface IndexVectors {
  embedder: EmbedderRecord;
  ids: BigInt64Array;
  vectors: Float32Array;
}

export async function indexVectors(indexDir: string): Promise<IndexVectors> {
  const opened = await openIndex(indexDir);
  try {
    const embedder = opened.embedder;
    const d = embedder.dimension;
    const ids: bigint[] = [];
    const rows: Float32Array[] = [];
    for await (const page of vectorPages(opened.store, embedder, { previous: opened.vectors.index })) {
      ids.push(...page.ids);
      rows.push(page.vectors);
    }
    const vectors = new Float32Array(ids.length * d);
    let at = 0;
    for (const row of rows) {
      vectors.set(row, at);
      at += row.length;
    }
    return { embedder, ids: BigInt64Array.from(ids), vectors };
  } finally {
    opened.close();
  }
}
