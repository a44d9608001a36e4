/**
 * The embedded store keeps each vector at half precision (src/vector/half-precision.ts):
 * an index built now holds tagged binary16 blobs, its FAISS file agrees with them
 * vector for vector, and an index written before (float32 blobs) is read as it was,
 * with the same answers.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';
import { decodeStoredVector } from '../../src/vector/half-precision.js';
import { readIndex } from '../helpers/index-state.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { searchFixtureFiles } from '../helpers/search-repo.js';

const QUERIES = ['hash a password with a salt', 'parse the configuration file', 'retry with backoff', 'Cache'];

let repo: TempRepo;
let dirs: TempRepo;

beforeAll(async () => {
  repo = tempRepo(searchFixtureFiles());
  dirs = tempRepo();
  await new Indexer({ path: repo.root, indexDir: join(dirs.root, 'index'), embedder: 'builtin', llm: false }).run();
}, 120_000);

afterAll(() => {
  repo?.cleanup();
  dirs?.cleanup();
});

async function answers(indexDir: string): Promise<string[][]> {
  const searcher = await Searcher.open({ indexDir });
  try {
    const out: string[][] = [];
    for (const query of QUERIES) {
      const { results } = await searcher.search(query, { snippet: false });
      out.push(results.map((r) => `${r.path}:${r.startLine} ${r.name} ${r.score.toFixed(6)}`));
    }
    return out;
  } finally {
    searcher.close();
  }
}

describe('vectors at half precision', () => {
  it('keeps two bytes a dimension (and a tag byte), and the FAISS file agrees with every row', async () => {
    const indexDir = join(dirs.root, 'index');
    const db = openSqlite(join(indexDir, 'index.db'), { readonly: true });
    try {
      const rows = prepared<[], { vector: Buffer }>(db, 'SELECT vector FROM embeddings').all();
      expect(rows.length).toBeGreaterThan(20);
      const dimension = decodeStoredVector(rows[0]!.vector)!.length;
      expect(dimension).toBeGreaterThan(0);
      for (const row of rows) expect(row.vector.length).toBe(1 + 2 * dimension);
    } finally {
      db.close();
    }
    const state = await readIndex(indexDir);
    expect(state.consistency.ok).toBe(true);
    expect(state.consistency.mismatched).toEqual([]);
  });

  it('reads an index written with float32 vectors as before, with the same answers', async () => {
    const indexDir = join(dirs.root, 'index');
    const before = await answers(indexDir);
    // The same index as an earlier version wrote it: every blob float32, the FAISS file rebuilt from them.
    const db = openSqlite(join(indexDir, 'index.db'));
    try {
      const rows = prepared<[], { id: number; vector: Buffer }>(db, 'SELECT id, vector FROM embeddings').all();
      const update = prepared<[Buffer, number]>(db, 'UPDATE embeddings SET vector = ? WHERE id = ?');
      for (const row of rows) {
        const vector = decodeStoredVector(row.vector)!;
        update.run(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), row.id);
      }
      expect(prepared<[], { n: number }>(db, 'SELECT min(length(vector)) AS n FROM embeddings').get()!.n % 4).toBe(0);
    } finally {
      db.close();
    }
    for (const name of readdirSync(indexDir)) if (name.endsWith('.ocvx')) rmSync(join(indexDir, name));
    expect(await answers(indexDir)).toEqual(before);
    expect((await readIndex(indexDir)).consistency.ok).toBe(true);
  });
});
