import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/analysis/analyzer.js';
import { StoreError } from '../../src/store/errors.js';
import { SCHEMA_VERSION } from '../../src/store/embedded/schema.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { lexicalTables } from '../../src/store/embedded/lexical-tables.js';
import { buildDocuments } from '../../src/vector/document.js';
import { SAMPLE_FILES } from '../helpers/repo.js';
import { openSqlite, pragmaValue, prepared, setPragma } from '../../src/store/embedded/sqlite.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => (dir = mkdtempSync(join(tmpdir(), 'ocvector-store-')));

describe('IndexStore', () => {
  it('creates a private WAL database at the current schema', () => {
    const store = IndexStore.open(join(fresh(), '.ocvector'));
    try {
      expect(statSync(join(dir, '.ocvector', 'index.db')).mode & 0o777).toBe(0o600);
      expect(pragmaValue(store.database, 'journal_mode')).toBe('wal');
      expect(pragmaValue(store.database, 'user_version')).toBe(SCHEMA_VERSION);
      expect(prepared(store.database, 'SELECT max(version) AS v FROM schema_version').get()).toEqual({
        v: SCHEMA_VERSION,
      });
    } finally {
      store.close();
    }
  });

  it('refuses a database from a newer ocvector, and a read-only open of a missing one', () => {
    const path = join(fresh(), 'index.db');
    const db = openSqlite(path);
    setPragma(db, `user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => IndexStore.open(dir)).toThrow(/written by a newer ocvector/);
    expect(() => IndexStore.open(join(dir, 'nothing'), { readonly: true })).toThrow(StoreError);
  });

  it('finds elements through FTS5 by sub-word, signature word and path', () => {
    const store = IndexStore.open(fresh());
    try {
      const text = SAMPLE_FILES['src/users.ts']!;
      const documents = buildDocuments(analyzeText('src/users.ts', text), text.split('\n'));
      const rootId = store.rootId('/repo');
      const fts = lexicalTables(rootId).elements;
      store.transaction(() =>
        store.writeFile(
          rootId,
          {
            path: 'src/users.ts',
            language: 'typescript',
            size: text.length,
            mtimeMs: 1,
            hash: 'h',
            status: 'indexed',
            error: null,
          },
          documents,
          1,
        ),
      );
      const match = (query: string) =>
        (
          prepared(
            store.database,
            `SELECT e.element_name AS name FROM ${fts} JOIN elements e ON e.vector_id = ${fts}.rowid WHERE ${fts} MATCH ? ORDER BY bm25(${fts})`,
          ).all(query) as { name: string }[]
        ).map((r) => r.name);
      expect(match('name:user')).toEqual(
        expect.arrayContaining(['UserRepository.getUserById', 'UserRepository.saveUser']),
      );
      expect(match('name:getuserbyid')).toEqual(['UserRepository.getUserById']);
      expect(match('description:deletes')).toEqual(['UserRepository.removeUser']); // porter stemming
      expect(match('path:users').length).toBe(documents.length);
    } finally {
      store.close();
    }
  });

  it('keeps the analysis cache and survives a damaged entry', () => {
    const store = IndexStore.open(fresh());
    try {
      const cache = store.analysisCache();
      cache.set('k', [{ 'file-path': 'a', language: 'typescript', summary: 's', imports: [], elements: [] }]);
      expect(cache.get('k')).toHaveLength(1);
      store.database.exec("UPDATE analysis_cache SET answers = '{not json'");
      expect(cache.get('k')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
