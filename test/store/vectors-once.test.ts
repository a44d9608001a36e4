/**
 * Each vector kept once. The built-in embedder's vectors (which cost less to
 * compute again than to keep twice) leave the database at each checkpoint
 * and are kept in the FAISS file alone: the database shrinks, a rebuild reads
 * them back from the index it replaces, readers replay those still waiting
 * in the database, and a lost file makes the next run embed its elements
 * again instead of losing them.
 */
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { FaissIndex } from '../../src/native/faiss-index.js';
import { Searcher } from '../../src/search/searcher.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import type { VectorIndexEvent } from '../../src/store/embedded/vector-file.js';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';
import { usableFile } from '../../src/store/embedded/vector-files.js';
import { keepVectorsAsOlderVersions, readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

function modules(count: number, from = 0): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = from; i < from + count; i++)
    files[`src/m${i}.ts`] =
      `/** Module ${i}: computes value ${i}. */\nexport function value${i}(x: number): number {\n  return x + ${i};\n}\n\nexport class Holder${i} {\n  readonly amount = ${i};\n}\n`;
  return files;
}

function indexDirOf(root: string): string {
  return join(root, '.ocvector');
}

function faissFile(indexDir: string): string {
  return join(indexDir, readdirSync(indexDir).find((name) => name.endsWith('.ocvx'))!);
}

function embeddingRows(indexDir: string): number {
  const db = openSqlite(join(indexDir, 'index.db'), { readonly: true });
  try {
    return prepared<[], { n: number }>(db, 'SELECT count(*) AS n FROM embeddings').get()!.n;
  } finally {
    db.close();
  }
}

/** Every element's vector in the FAISS file, by vector id. */
async function fileVectors(indexDir: string): Promise<Map<number, number[]>> {
  const state = await readIndex(indexDir);
  const ids = state.elements.map((element) => element.vectorId);
  const index = await FaissIndex.read(faissFile(indexDir));
  try {
    const { vectors, found } = await index.reconstructMany(ids);
    expect([...found].every(Boolean)).toBe(true);
    return new Map(ids.map((id, i) => [id, [...vectors.subarray(i * index.d, (i + 1) * index.d)]]));
  } finally {
    index.close();
  }
}

const builtin = (root: string, extra: object = {}) => ({
  path: root,
  embedder: 'builtin' as const,
  llm: false,
  ...extra,
});

describe('vectors of the built-in embedder, kept once', () => {
  it('leave the database at a checkpoint; a later change waits there, and readers replay it', async () => {
    const repo = (owned.repo = tempRepo(modules(20)));
    const indexDir = indexDirOf(repo.root);
    const first = await new Indexer(builtin(repo.root)).run();
    expect(first.index.written).toBe(true);
    expect(embeddingRows(indexDir)).toBe(0);
    expect((await readIndex(indexDir)).consistency.ok).toBe(true);

    repo.write(
      'src/ledger.ts',
      'export function reconcileLedgerEntries(entries: number[]): number {\n  return 0;\n}\n',
    );
    const second = await new Indexer(builtin(repo.root)).run();
    expect(second.index.written).toBe(false);
    expect(embeddingRows(indexDir)).toBe(1);
    const searcher = await Searcher.open({ indexDir });
    try {
      const { results } = await searcher.search('reconcile ledger entries', { mode: 'vector', snippet: false });
      expect(results[0]?.name).toBe('reconcileLedgerEntries');
    } finally {
      searcher.close();
    }
    expect((await readIndex(indexDir)).consistency.ok).toBe(true);
  });

  it('leave the database alone: the vectors cached for another embedder stay', async () => {
    const repo = (owned.repo = tempRepo(modules(20)));
    const indexDir = indexDirOf(repo.root);
    await new Indexer(builtin(repo.root)).run();
    const db = openSqlite(join(indexDir, 'index.db'));
    try {
      // A model's vector kept from before a switch of embedder: its cache is worth keeping.
      prepared(db, 'INSERT INTO embeddings (embedder, document_hash, vector) VALUES (?, ?, ?)').run(
        'ollama:some-model',
        'a-document',
        Buffer.from(new Float32Array(8).buffer),
      );
    } finally {
      db.close();
    }
    rmSync(faissFile(indexDir)); // the next run writes the file again: a checkpoint
    expect((await new Indexer(builtin(repo.root)).run()).index.written).toBe(true);
    const after = openSqlite(join(indexDir, 'index.db'), { readonly: true });
    try {
      const rows = prepared<[], { embedder: string }>(after, 'SELECT embedder FROM embeddings').all();
      expect(rows).toEqual([{ embedder: 'ollama:some-model' }]);
    } finally {
      after.close();
    }
  });

  it('are read back from the exact index when it becomes IVF, unchanged', async () => {
    const repo = (owned.repo = tempRepo(modules(50)));
    const indexDir = indexDirOf(repo.root);
    const options = builtin(repo.root, { vectorIndex: { approximateThreshold: 200 } });
    expect((await new Indexer(options).run()).index.description).toBe('Flat');
    const exact = await fileVectors(indexDir);
    expect(embeddingRows(indexDir)).toBe(0);

    for (const [path, content] of Object.entries(modules(50, 50))) repo.write(path, content);
    const grown = await new Indexer(options).run();
    expect(grown.index.description).toMatch(/^IVF\d+,SQfp16$/);
    expect(grown.elements.total).toBe(300);
    const state = await readIndex(indexDir);
    expect(state.consistency.vectors).toBe(300);
    const ivf = await fileVectors(indexDir);
    // Half-precision lists keep the exact index's vectors as they were.
    for (const [id, vector] of exact) expect(ivf.get(id)).toEqual(vector);
  });

  it('of a lost index file: a searcher answers lexically, saying why, and has them again once a run repaired them', async () => {
    const repo = (owned.repo = tempRepo(modules(20)));
    const indexDir = indexDirOf(repo.root);
    await new Indexer(builtin(repo.root)).run();
    rmSync(faissFile(indexDir));
    const searcher = await Searcher.open({ indexDir });
    try {
      const lost = await searcher.search('value 7', { snippet: false });
      expect(lost.fallback?.reason).toMatch(/have no vector .*run oc-vector-index to embed them again/);
      expect(lost.results.length).toBeGreaterThan(0);
      await expect(searcher.search('value 7', { mode: 'vector' })).rejects.toMatchObject({
        code: 'VECTORS_UNAVAILABLE',
      });
      await new Indexer(builtin(repo.root)).run();
      // The same searcher, after the run committed: the vectors are read again.
      const repaired = await searcher.search('value 7', { mode: 'vector', snippet: false });
      expect(repaired.fallback).toBeUndefined();
      expect(repaired.results.length).toBeGreaterThan(0);
    } finally {
      searcher.close();
    }
  });

  it('of a lost index file are embedded again by the next run', async () => {
    const repo = (owned.repo = tempRepo(modules(20)));
    const indexDir = indexDirOf(repo.root);
    const first = await new Indexer(builtin(repo.root)).run();
    const before = (await readIndex(indexDir)).elements;
    rmSync(faissFile(indexDir));
    const again = await new Indexer(builtin(repo.root)).run();
    expect(again.elements.total).toBe(first.elements.total);
    expect(again.files.unchanged).toBe(0); // every file read again, in this run
    // Their rows stay as they were (ids, and so the lexical index's rows): only the vectors are made again.
    expect((await readIndex(indexDir)).elements).toEqual(before);
    const state = await readIndex(indexDir);
    expect(state.consistency.ok).toBe(true);
    expect(state.consistency.vectors).toBe(first.elements.total);
  });

  it('in a file touched since it was written, but whole, stay: the file is checked, and written again', async () => {
    const repo = (owned.repo = tempRepo(modules(20)));
    const indexDir = indexDirOf(repo.root);
    const first = await new Indexer(builtin(repo.root)).run();
    const path = faissFile(indexDir);
    utimesSync(path, new Date(), new Date(Date.now() - 60_000)); // as a copy or a restore leaves it
    const asWritten = () => {
      const store = IndexStore.open(indexDir, { readonly: true });
      try {
        return usableFile(store)?.asWritten;
      } finally {
        store.close();
      }
    };
    expect(asWritten()).toBe(false);
    const again = await new Indexer(builtin(repo.root)).run();
    expect(again.files.unchanged).toBe(first.files.added);
    // Not recorded as it is now: a file this index did not write is parsed here only once it wrote it again.
    expect(again.index.written).toBe(true);
    expect(asWritten()).toBe(true);
    expect((await readIndex(indexDir)).consistency).toMatchObject({ ok: true, vectors: first.elements.total });
  });

  it('of a second copy of a document in a file are kept too: the copy has a vector of its own', async () => {
    const repo = (owned.repo = tempRepo(modules(20)));
    const indexDir = indexDirOf(repo.root);
    const twice = (copies: number) =>
      Array.from({ length: copies }, () => 'class Twin {\n  run(): number {\n    return 7;\n  }\n}\n').join('\n');
    repo.write('src/twins.ts', twice(1));
    await new Indexer(builtin(repo.root)).run();
    expect(embeddingRows(indexDir)).toBe(0);
    // The same document again in the same file: an element the index did not have, whose vector
    // the FAISS file holds only under the first copy's id.
    repo.write('src/twins.ts', twice(2));
    expect((await new Indexer(builtin(repo.root)).run()).index.written).toBe(false);
    const searcher = await Searcher.open({ indexDir });
    try {
      const found = await searcher.search('Twin run', { snippet: false });
      expect(found.fallback).toBeUndefined();
      expect(found.results.filter((result) => result.path === 'src/twins.ts').length).toBeGreaterThan(1);
    } finally {
      searcher.close();
    }
    expect((await readIndex(indexDir)).consistency.ok).toBe(true);
  });

  it('of a lost file shared by several repositories: each run embeds its own again, and says whose are out until their run', async () => {
    const alpha = (owned.repo = tempRepo(modules(10)));
    // Over the 1,000 changes that call for a checkpoint: beta's vectors too are in the file alone.
    const beta = tempRepo(modules(340, 100));
    try {
      const indexDir = join(alpha.root, 'shared-index');
      const into = (root: string) => builtin(root, { indexDir });
      await new Indexer(into(alpha.root)).run();
      expect((await new Indexer(into(beta.root)).run()).index.written).toBe(true);
      expect(embeddingRows(indexDir)).toBe(0);
      const before = (await readIndex(indexDir)).elements;
      const alphaElements = before.filter(
        (element) => element.path.startsWith('src/m') && Number(element.path.slice(5, -3)) < 100,
      );
      rmSync(faissFile(indexDir));
      const events: VectorIndexEvent[] = [];
      const first = await new Indexer({
        ...into(alpha.root),
        onEvent: (event) => event.type === 'vector-index' && events.push(event.event),
      }).run();
      // Alpha's vectors are embedded again, its rows as they were; beta's elements are out until beta's run.
      expect(first.index.written).toBe(true);
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'repository-vectors-lost', root: beta.root, elements: 1_020 }),
      );
      const between = await readIndex(indexDir);
      expect(between.consistency).toMatchObject({ ok: true, vectors: alphaElements.length });
      expect(between.elements).toEqual(alphaElements);
      const searcher = await Searcher.open({ indexDir });
      try {
        const found = await searcher.search('value 7', { mode: 'vector', snippet: false });
        expect(found.results.length).toBeGreaterThan(0);
      } finally {
        searcher.close();
      }
      const second = await new Indexer(into(beta.root)).run();
      expect(second.elements.total).toBe(before.length);
      expect((await readIndex(indexDir)).consistency).toMatchObject({ ok: true, vectors: before.length });
    } finally {
      beta.cleanup();
    }
  });

  it('leave their pages to the file system: an index that kept them all shrinks at its next checkpoint', async () => {
    const repo = (owned.repo = tempRepo(modules(400)));
    const indexDir = indexDirOf(repo.root);
    await new Indexer(builtin(repo.root)).run();
    // As an older version left it: every vector in the database too, and the FAISS file to be rebuilt from them.
    const vectors = await fileVectors(indexDir);
    await keepVectorsAsOlderVersions(indexDir);
    rmSync(faissFile(indexDir));
    const kept = statSync(join(indexDir, 'index.db')).size;
    const run = await new Indexer(builtin(repo.root)).run();
    expect(run.index.written).toBe(true);
    expect(embeddingRows(indexDir)).toBe(0);
    expect(statSync(join(indexDir, 'index.db')).size).toBeLessThan(kept * 0.6);
    expect(await fileVectors(indexDir)).toEqual(vectors);
  });
});
