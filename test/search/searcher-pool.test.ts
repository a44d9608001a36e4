/**
 * SearcherPool: searches on worker threads, each with a Searcher of its own
 * over one index, sharing one FAISS index in memory. It answers what a
 * Searcher answers, fails as a Searcher fails (the same error classes and
 * codes), brings itself level with an indexer's later commits, and replaces
 * a worker that dies.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { loadAddon } from '../../src/native/addon.js';
import { SearchError } from '../../src/search/errors.js';
import { SearcherPool } from '../../src/search/pool/searcher-pool.js';
import type { Searcher, SearchResponse } from '../../src/search/searcher.js';
import { StoreError } from '../../src/store/errors.js';
import { indexedSearchRepo, LABELS } from '../helpers/search-repo.js';

const { repo, searcher } = indexedSearchRepo();
/** A Searcher on the calling thread over the same index: what the pool must answer as. */
let alone: Searcher;
let indexDir: string;
beforeAll(() => {
  alone = searcher();
  indexDir = alone.indexDir;
});

const queries = LABELS.map((label) => label.query).slice(0, 12);
/** A module the workers preload that ends a worker on one query (test/fixtures/search-pool). */
const crashFixture = pathToFileURL(
  new URL('../fixtures/search-pool/crash-on-query.mjs', import.meta.url).pathname,
).href;
const shown = (response: SearchResponse) => response.results.map((r) => `${r.path}:${r.startLine} ${r.score}`);

describe('SearcherPool', () => {
  it('answers every query as a Searcher does, from two workers sharing one vector index', async () => {
    const pool = await SearcherPool.open({ indexDir, workers: 2 });
    try {
      expect(pool.workers).toBe(2);
      expect(loadAddon().sharedIndexes!()).toBe(1);
      expect([pool.indexDir, pool.root, pool.embedderId]).toEqual([alone.indexDir, alone.root, alone.embedderId]);
      const answers = await Promise.all(queries.map((query) => pool.search(query, { snippet: false })));
      for (const [i, query] of queries.entries())
        expect(shown(answers[i]!), query).toEqual(shown(await alone.search(query, { snippet: false })));
      const withSnippets = await pool.search(queries[0]!);
      expect(withSnippets.results[0]!.snippet).toBe((await alone.search(queries[0]!)).results[0]!.snippet);
      const { timings: _pooled, ...references } = await pool.references('hashPassword');
      const { timings: _alone, ...expected } = await alone.references('hashPassword');
      expect(references.total).toBeGreaterThan(0);
      expect(references).toEqual(expected);
      expect(await pool.searchRoots()).toEqual(await alone.searchRoots());
      expect(await pool.currentRepositories()).toEqual(await alone.currentRepositories());
      expect((await pool.embedderStatus()).available).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('fails as a Searcher fails: the same error classes and codes', async () => {
    const pool = await SearcherPool.open({ indexDir, workers: 1 });
    try {
      const empty = await pool.search('   ').catch((error: unknown) => error);
      expect(empty).toBeInstanceOf(SearchError);
      expect((empty as SearchError).code).toBe('BAD_QUERY');
      const unknown = await pool.searchRoots(['no-such-repository']).catch((error: unknown) => error);
      expect(unknown).toBeInstanceOf(SearchError);
      expect((unknown as SearchError).code).toBe('UNKNOWN_REPO');
    } finally {
      await pool.close();
    }
    const closed = await pool.search('hash a password').catch((error: unknown) => error);
    expect((closed as SearchError).code).toBe('CLOSED');
    const missing = await SearcherPool.open({ indexDir: join(repo.root, 'nowhere'), workers: 2 }).catch(
      (error: unknown) => error,
    );
    expect(missing).toBeInstanceOf(StoreError);
    expect((missing as StoreError).code).toBe('NOT_FOUND');
  });

  it('refuses options that cannot reach a worker thread, naming them', async () => {
    await expect(SearcherPool.open({ indexDir, workers: 0 })).rejects.toThrow(/workers must be an integer from 1/);
    await expect(SearcherPool.open({ indexDir, workers: 1.5 })).rejects.toThrow(/workers must be an integer/);
    const withEmbedder = { indexDir, embedder: {} } as Parameters<typeof SearcherPool.open>[0];
    await expect(SearcherPool.open(withEmbedder)).rejects.toThrow(/give embedderOptions.*not an embedder/);
  });

  it('sees what an indexer commits later: the shared vector index stays as its file is, the changes go to a copy', async () => {
    const pool = await SearcherPool.open({ indexDir, workers: 2 });
    try {
      const query = 'reticulate the splines of a zeppelin hangar';
      expect(shown(await pool.search(query, { snippet: false })).join()).not.toContain('zeppelin.ts');
      repo.write(
        'src/zeppelin.ts',
        '/** Reticulates the splines of a zeppelin hangar. */\nexport function reticulateZeppelinSplines(hangar: string[]): number {\n  return hangar.length;\n}\n',
      );
      await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
      const answers = await Promise.all([1, 2, 3, 4].map(() => pool.search(query, { snippet: false, mode: 'vector' })));
      for (const answer of answers) expect(answer.results[0]?.path).toBe('src/zeppelin.ts');
    } finally {
      await pool.close();
    }
  });

  it('lets the calls a worker holds finish when closed', async () => {
    const pool = await SearcherPool.open({ indexDir, workers: 1 });
    const held = [pool.search(queries[0]!, { snippet: false }), pool.search(queries[1]!, { snippet: false })];
    await pool.close();
    for (const answer of await Promise.all(held)) expect(answer.results.length).toBeGreaterThan(0);
    await expect(pool.search(queries[0]!)).rejects.toThrow(/the searcher is closed/);
  });

  it('fails the calls, rather than holding them, when no worker can open the index again', async () => {
    const marker = join(repo.root, 'refuse-to-open');
    const refusing = `${crashFixture}?refuse=${encodeURIComponent(marker)}`;
    const pool = await SearcherPool.open({ indexDir, workers: 1, preload: [refusing] });
    try {
      writeFileSync(marker, '');
      await expect(pool.search('crash this worker')).rejects.toThrow(/a search worker stopped \(exit code 7\)/);
      const next = await pool.search(queries[0]!).catch((error: unknown) => error);
      expect(next).toBeInstanceOf(SearchError);
      expect((next as Error).message).toMatch(/no search worker could open the index/);
    } finally {
      rmSync(marker, { force: true });
      await pool.close();
    }
  });

  it('replaces a worker that dies: its call fails, the next ones are answered', async () => {
    const pool = await SearcherPool.open({ indexDir, workers: 1, preload: [crashFixture] });
    try {
      const lost = await pool.search('crash this worker').catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(SearchError);
      expect((lost as Error).message).toMatch(/a search worker stopped \(exit code 7\)/);
      const after = await pool.search(queries[0]!, { snippet: false });
      expect(after.results.length).toBeGreaterThan(0);
      expect(pool.workers).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
