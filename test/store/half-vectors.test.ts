/**
 * The embedded store keeps each vector at half precision (src/vector/half-precision.ts):
 * the vectors waiting for a checkpoint are tagged binary16 blobs, the FAISS file agrees
 * with them vector for vector, and an index written before (every vector in the
 * database, as float32 blobs) is read as it was, with the same answers.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';
import { decodeStoredVector } from '../../src/vector/half-precision.js';
import { keepVectorsAsOlderVersions, readIndex } from '../helpers/index-state.js';
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
  it('keeps two bytes a dimension (and a tag byte) until a checkpoint, and the FAISS file agrees with every row', async () => {
    const indexDir = join(dirs.root, 'index');
    // The built-in embedder's vectors are in the FAISS file alone once checkpointed (vector-file.ts).
    expect(embeddingBlobs(indexDir)).toEqual([]);
    // A small change is not checkpointed: its vectors wait in the database, for readers to replay.
    repo.write('src/added.ts', 'export function addedHelper(value: number): number {\n  return value * 2;\n}\n');
    await new Indexer({ path: repo.root, indexDir, embedder: 'builtin', llm: false }).run();
    const blobs = embeddingBlobs(indexDir);
    expect(blobs.length).toBeGreaterThan(0);
    const dimension = decodeStoredVector(blobs[0]!)!.length;
    expect(dimension).toBeGreaterThan(0);
    for (const blob of blobs) expect(blob.length).toBe(1 + 2 * dimension);
    const state = await readIndex(indexDir);
    expect(state.consistency.ok).toBe(true);
    expect(state.consistency.mismatched).toEqual([]);
  });

  it('reads an index written with float32 vectors as before, with the same answers', async () => {
    const indexDir = join(dirs.root, 'index');
    const before = await answers(indexDir);
    // The same index as an earlier version wrote it: every element's vector in the database as float32
    // (taken from the FAISS file), and the FAISS file rebuilt from them.
    await keepVectorsAsOlderVersions(indexDir);
    const db = openSqlite(join(indexDir, 'index.db'), { readonly: true });
    try {
      expect(prepared<[], { n: number }>(db, 'SELECT min(length(vector)) AS n FROM embeddings').get()!.n % 4).toBe(0);
    } finally {
      db.close();
    }
    for (const name of readdirSync(indexDir)) if (name.endsWith('.ocvx')) rmSync(join(indexDir, name));
    expect(await answers(indexDir)).toEqual(before);
    expect((await readIndex(indexDir)).consistency.ok).toBe(true);
  });
});

/** The database's copies of vectors, as stored. */
function embeddingBlobs(indexDir: string): Buffer[] {
  const db = openSqlite(join(indexDir, 'index.db'), { readonly: true });
  try {
    return prepared<[], { vector: Buffer }>(db, 'SELECT vector FROM embeddings')
      .all()
      .map((row) => row.vector);
  } finally {
    db.close();
  }
}
