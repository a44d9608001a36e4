/** Reads an index back the way a searcher would, for assertions. */
import { checkConsistency, type ConsistencyReport } from '../../src/store/embedded/check.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FaissIndex } from '../../src/native/faiss-index.js';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';
import { decodeStoredVector } from '../../src/vector/half-precision.js';

export interface ElementState {
  vectorId: number;
  path: string;
  type: string;
  name: string;
  startLine: number;
  endLine: number;
}

export async function readIndex(indexDir: string): Promise<{
  elements: ElementState[];
  files: { path: string; status: string; error: string | null }[];
  consistency: ConsistencyReport;
  description: string;
}> {
  const opened = await openIndex(indexDir);
  try {
    const elements = prepared(
      opened.store.database,
      `SELECT e.vector_id AS vectorId, f.path AS path, e.element_type AS type, e.element_name AS name, e.start_line AS startLine, e.end_line AS endLine
         FROM elements e JOIN files f ON f.id = e.file_id ORDER BY f.path, e.start_line, e.element_name`,
    ).all() as ElementState[];
    const files = prepared(opened.store.database, 'SELECT path, status, error FROM files ORDER BY path').all() as {
      path: string;
      status: string;
      error: string | null;
    }[];
    return {
      elements,
      files,
      consistency: await checkConsistency(opened.store, opened.vectors),
      description: opened.vectors.index.description,
    };
  } finally {
    opened.close();
  }
}

export function idsByName(elements: ElementState[]): Map<string, number> {
  return new Map(elements.map((e) => [`${e.path}#${e.name}`, e.vectorId]));
}

/**
 * Puts every element's vector in the database as float32, as versions before
 * "each vector once" kept them: from the FAISS file, or for a vector waiting
 * for a checkpoint from the database's own row. The FAISS file stays.
 */
export async function keepVectorsAsOlderVersions(indexDir: string): Promise<void> {
  const file = readdirSync(indexDir).find((name) => name.endsWith('.ocvx'))!;
  const faiss = await FaissIndex.read(join(indexDir, file));
  const db = openSqlite(join(indexDir, 'index.db'));
  try {
    const rows = prepared<[], { id: number; hash: string }>(
      db,
      'SELECT vector_id AS id, document_hash AS hash FROM elements',
    ).all();
    const { vectors, found } = await faiss.reconstructMany(rows.map((row) => row.id));
    const { value: embedder } = prepared<[], { value: string }>(
      db,
      "SELECT value FROM meta WHERE key = 'embedder'",
    ).get()!;
    const put = prepared(db, 'INSERT OR REPLACE INTO embeddings (embedder, document_hash, vector) VALUES (?, ?, ?)');
    const waiting = prepared<[string], { vector: Buffer }>(db, 'SELECT vector FROM embeddings WHERE document_hash = ?');
    for (const [i, row] of rows.entries()) {
      const vector = found[i]
        ? vectors.slice(i * faiss.d, (i + 1) * faiss.d)
        : decodeStoredVector(waiting.get(row.hash)!.vector)!;
      put.run(embedder, row.hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    }
  } finally {
    faiss.close();
    db.close();
  }
}
