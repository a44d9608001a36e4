/**
 * The texts kept for the lexical rows' deletes (embedded/lexical-tables.ts, `lexical_texts`):
 * one blob per file with elements, holding a row for each of its elements and no other, through
 * every path that removes rows (a changed file, a deleted one, forgotten elements, a dropped
 * repository, a rebuild, the upgrade to schema 7). A blob that does not read back (the index may
 * come from elsewhere) is a damaged index: CORRUPT, saying to rebuild, and a rebuild recovers.
 */
import { join } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { dropRepository } from '../../src/store/embedded/drop-repository.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { prepared } from '../../src/store/embedded/sqlite.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { undoExactLexicalStatistics } from '../helpers/schema-downgrade.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const made: TempRepo[] = [];
afterEach(() => {
  for (const repo of made.splice(0)) repo.cleanup();
});

function functions(prefix: string, count: number): string {
  return Array.from(
    { length: count },
    (_, i) =>
      `/** The ${prefix} step ${i}. */\nexport function ${prefix}Step${i}(token: string): string {\n  return token + '${prefix}${i}';\n}\n`,
  ).join('\n');
}

function repoOf(files: Record<string, string>): TempRepo {
  const repo = tempRepo(files);
  repo.age();
  made.push(repo);
  return repo;
}

function index(path: string, options: { indexDir?: string; repo?: string; rebuild?: boolean } = {}) {
  return indexBuiltin(path, { threads: 1, ...options });
}

/** Runs work on the index's database, as a writer. */
function withDatabase<T>(indexDir: string, work: (db: IndexStore['database'], store: IndexStore) => T): T {
  const store = IndexStore.open(indexDir);
  try {
    return work(store.database, store);
  } finally {
    store.close();
  }
}

/** Every file's elements against its stored rows, both by file id; they must be the same. Returns how many files have texts. */
function expectTextsMatchElements(indexDir: string): number {
  return withDatabase(indexDir, (db) => {
    const elements = new Map<number, number[]>();
    for (const { fileId, id } of prepared<[], { fileId: number; id: number }>(
      db,
      'SELECT file_id AS fileId, vector_id AS id FROM elements ORDER BY vector_id',
    ).all())
      elements.set(fileId, [...(elements.get(fileId) ?? []), id]);
    const texts = new Map<number, number[]>();
    for (const { fileId, packed } of prepared<[], { fileId: number; packed: Buffer }>(
      db,
      'SELECT file_id AS fileId, texts AS packed FROM lexical_texts',
    ).all()) {
      const rows = JSON.parse(inflateRawSync(packed).toString('utf8')) as [number, ...string[]][];
      texts.set(
        fileId,
        rows.map((row) => row[0]).sort((a, b) => a - b),
      );
    }
    expect(texts).toEqual(elements);
    return texts.size;
  });
}

function fileId(db: IndexStore['database'], path: string): number {
  return prepared<[string], number>(db, 'SELECT id FROM files WHERE path = ?').pluck().get(path)!;
}

/** The file's elements (their vector ids), in order. */
function elementIds(db: IndexStore['database'], file: number): number[] {
  return prepared<[number], number>(db, 'SELECT vector_id FROM elements WHERE file_id = ? ORDER BY vector_id')
    .pluck()
    .all(file);
}

describe('lexical texts: one blob per file, a row per element, none left over', () => {
  it('through changed and deleted files, forgotten elements and a rebuild', async () => {
    const repo = repoOf({
      'src/a.ts': functions('alpha', 3),
      'src/b.ts': functions('beta', 2),
      'src/c.ts': functions('gamma', 4),
    });
    const indexDir = join(repo.root, '.ocvector');
    await index(repo.root);
    expect(expectTextsMatchElements(indexDir)).toBe(3);

    repo.write('src/a.ts', functions('alpha', 2) + functions('delta', 2));
    repo.remove('src/b.ts');
    repo.age();
    await index(repo.root);
    expect(expectTextsMatchElements(indexDir)).toBe(2);

    // Elements forgotten (their vectors lost): their rows go, the file keeps the others' texts.
    withDatabase(indexDir, (db, store) => {
      const ids = elementIds(db, fileId(db, 'src/c.ts'));
      store.transaction(() => store.forgetElements(ids.slice(0, 2)));
    });
    expect(expectTextsMatchElements(indexDir)).toBe(2);
    await index(repo.root);
    expect(expectTextsMatchElements(indexDir)).toBe(2);

    await index(repo.root, { rebuild: true });
    expect(expectTextsMatchElements(indexDir)).toBe(2);
  }, 30_000);

  it('through a dropped repository: its files take their texts with them, the others keep theirs', async () => {
    const a = repoOf({ 'a.ts': functions('alpha', 3) });
    const b = repoOf({ 'b.ts': functions('beta', 3), 'lib/b2.ts': functions('beta2', 2) });
    const shared = repoOf({});
    const indexDir = join(shared.root, 'index');
    await index(a.root, { indexDir, repo: 'a' });
    await index(b.root, { indexDir, repo: 'b' });
    expect(expectTextsMatchElements(indexDir)).toBe(3);
    await dropRepository(indexDir, 'b');
    expect(expectTextsMatchElements(indexDir)).toBe(1);
    a.write('a.ts', functions('alpha', 2));
    a.age();
    await index(a.root, { indexDir, repo: 'a' });
    expect(expectTextsMatchElements(indexDir)).toBe(1);
  }, 30_000);

  it('through the upgrade to schema 7, which gives every file its texts again', async () => {
    const repo = repoOf({ 'src/a.ts': functions('alpha', 3), 'src/b.ts': functions('beta', 2) });
    const indexDir = join(repo.root, '.ocvector');
    await index(repo.root);
    withDatabase(indexDir, (db) => undoExactLexicalStatistics(db));
    await index(repo.root);
    expect(expectTextsMatchElements(indexDir)).toBe(2);
  }, 30_000);
});

describe('damaged lexical texts: CORRUPT, saying to rebuild; a rebuild recovers', () => {
  const rows = (id: number) => [[id, 'name', 'sig', 'desc', 'path', 'code']];
  const damage: [string, (ids: number[]) => Buffer][] = [
    ['bytes that do not inflate', () => Buffer.from('not deflate at all, just text')],
    ['more than the cap once inflated', () => deflateRawSync(Buffer.alloc(257 * 1024 * 1024), { level: 1 })],
    ['not a list of rows', () => deflateRawSync('{"rows": 1}')],
    ['a row of the wrong shape', (ids) => deflateRawSync(JSON.stringify(ids.map((id) => [id, 'name', 7])))],
    ['a row missing', (ids) => deflateRawSync(JSON.stringify(ids.slice(1).flatMap(rows)))],
  ];
  it.each(damage)(
    '%s',
    async (_, blob) => {
      const repo = repoOf({ 'src/a.ts': functions('alpha', 3), 'src/b.ts': functions('beta', 2) });
      const indexDir = join(repo.root, '.ocvector');
      await index(repo.root);
      withDatabase(indexDir, (db) => {
        const id = fileId(db, 'src/a.ts');
        prepared(db, 'UPDATE lexical_texts SET texts = ? WHERE file_id = ?').run(blob(elementIds(db, id)), id);
      });
      // A change that removes an element: its delete needs the file's texts.
      repo.write('src/a.ts', functions('alpha', 2));
      repo.age();
      await expect(index(repo.root)).rejects.toMatchObject({
        name: 'StoreError',
        code: 'CORRUPT',
        message: expect.stringContaining('oc-vector-index --rebuild'),
      });
      await index(repo.root, { rebuild: true });
      expect(expectTextsMatchElements(indexDir)).toBe(2);
    },
    30_000,
  );
});
