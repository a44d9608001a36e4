import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/index.js';
import { ElementFiles } from '../../src/store/embedded/element-files.js';
import { SearchReader } from '../../src/store/embedded/search-reader.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { searchRepo } from '../helpers/search-repo.js';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';

function elementsTable(rows: [vectorId: number, fileId: number][]): Database.Database {
  const db = openSqlite(':memory:');
  db.exec('CREATE TABLE elements (vector_id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL)');
  const insert = prepared(db, 'INSERT INTO elements (vector_id, file_id) VALUES (?, ?)');
  for (const row of rows) insert.run(...row);
  return db;
}

describe('the element-to-file map', () => {
  it('counts each element once per term, whichever tables matched it, and leaves out ids it does not know', () => {
    const db = elementsTable([
      [1, 10],
      [2, 10],
      [3, 20],
      [7, 30],
    ]);
    const map = ElementFiles.read(db)!;
    // Element 2 matched in both tables; 99 was written after the map was read.
    const counts = map.countByFile([
      [1, 2, 3],
      [2, 7, 99],
    ]);
    expect([...counts].sort()).toEqual([
      [10, 2],
      [20, 1],
      [30, 1],
    ]);
    // The next term starts afresh.
    expect([...map.countByFile([[2], [2]])]).toEqual([[10, 1]]);
    expect(map.sizeOf(10)).toBe(2);
    expect(map.sizeOf(30)).toBe(1);
    db.close();
  });

  it('is not read when the ids are too sparse for an array indexed by them', () => {
    const db = elementsTable([
      [1, 10],
      [50_000_000, 10],
    ]);
    expect(ElementFiles.read(db)).toBeUndefined();
    db.close();
  });
});

describe('whole-file term counts', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('are the same through the map as through SQL, before and after a re-index', async () => {
    const repo = searchRepo();
    cleanup = () => repo.cleanup();
    const indexer = () => new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    const first = indexer();
    await first.run();
    const terms = ['"password"', '"retry"', '"cache"', '"config"', '"limit"', '"nothingmatchesthis"'];

    const store = IndexStore.open(first.indexDir, { readonly: true });
    // The first counts of a reader's generation are asked of SQL.
    const bySql = () => new SearchReader(store).fileTermCounts(terms, store.generation);
    // One reader throughout, as a long-lived searcher keeps: after its first counts, through the map.
    const reader = new SearchReader(store);
    const counts = () => reader.fileTermCounts(terms, store.generation);
    try {
      const before = bySql();
      for (let i = 0; i < 3; i++) expect(counts()).toEqual(before);
      expect(before.perTerm.filter((perFile) => perFile.size > 0).length).toBeGreaterThanOrEqual(4);

      // Elements removed, changed and added: the map of the old generation would miss the new ids.
      repo.write(
        'src/net/retry.ts',
        'export function retryWithCache(cache: Map<string, number>) {\n  return cache.size;\n}\n',
      );
      repo.write(
        'src/net/cache-keys.ts',
        'export const cacheKey = (id: string) => "cache:" + id;\nexport function clearCache() {}\n',
      );
      repo.remove('src/util/lru-cache.ts');
      repo.age();
      await indexer().run();
      const after = bySql();
      expect(after).not.toEqual(before);
      for (let i = 0; i < 3; i++) expect(counts()).toEqual(after);
    } finally {
      store.close();
    }
  });
});
