/**
 * Issue 54, case 6: SQLite runs what a database's schema holds, and an index can arrive
 * with a clone. Every connection is defensive (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema
 * off), and a schema that is not exactly one ocvector makes (a trigger, a view, a table,
 * index or column of its own) is refused with StoreError UNTRUSTED before anything runs on
 * it, migrations included; every index ocvector writes, made new or migrated from any older
 * schema, is accepted.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Searcher } from '../../src/internal.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { madeSchemaRows } from '../../src/store/embedded/schema-check.js';
import { CURRENT_SCHEMA_ROWS } from '../../src/store/embedded/schema-reference.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/embedded/schema.js';
import { openSqlite, pragmaValue, prepared, setPragma } from '../../src/store/embedded/sqlite.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { SAMPLE_FILES, type TempRepo, tempRepo } from '../helpers/repo.js';

const UNTRUSTED = { name: 'StoreError', code: 'UNTRUSTED' };
const SOURCES = new URL('../../src/', import.meta.url).pathname;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function indexed(): Promise<{ repo: TempRepo; indexDir: string }> {
  const repo = tempRepo(SAMPLE_FILES);
  cleanups.push(() => repo.cleanup());
  await indexBuiltin(repo.root);
  return { repo, indexDir: join(repo.root, '.ocvector') };
}

/** Runs SQL on the index's database as an attacker would before committing it. */
function tamper(indexDir: string, sql: string, userVersion?: number): void {
  const db = openSqlite(join(indexDir, 'index.db'));
  db.exec(sql);
  if (userVersion !== undefined) setPragma(db, `user_version = ${userVersion}`);
  db.close();
}

function rootPaths(indexDir: string): string[] {
  const db = openSqlite(join(indexDir, 'index.db'), { readonly: true });
  const paths = prepared<[], string>(db, 'SELECT path FROM roots ORDER BY id').pluck().all();
  db.close();
  return paths;
}

const REROOT = "BEGIN UPDATE roots SET path = '/etc'; END";

describe('the SQL an index carries is never run', () => {
  it('a trigger committed in index.db fires in no run: the indexer and the searcher refuse the index', async () => {
    const { repo, indexDir } = await indexed();
    tamper(indexDir, `CREATE TRIGGER reroot AFTER UPDATE ON meta ${REROOT}`);

    const run = await failureOf(indexBuiltin(repo.root));
    expect(rootPaths(indexDir)).toEqual([repo.root]);
    expect(run).toMatchObject({
      ...UNTRUSTED,
      message: expect.stringMatching(
        /holds a trigger "reroot" that ocvector never makes.*delete .*\.ocvector and index again/,
      ),
    });
    await expect(Searcher.open({ indexDir })).rejects.toMatchObject(UNTRUSTED);
  });

  it('a trigger in an index of an older schema is refused before the migration that would fire it', async () => {
    const { repo, indexDir } = await indexed();
    // Schema 5 differs from 6 only by migration 6's UPDATE of every file.
    tamper(indexDir, `CREATE TRIGGER reroot AFTER UPDATE ON files ${REROOT}`, SCHEMA_VERSION - 1);

    const run = await failureOf(indexBuiltin(repo.root));
    expect(rootPaths(indexDir)).toEqual([repo.root]);
    expect(run).toMatchObject(UNTRUSTED);
  });

  it.each([
    [
      'a view in place of a table',
      'DROP TABLE analysis_cache; CREATE VIEW analysis_cache AS SELECT 1 AS answers',
      /a view "analysis_cache" that ocvector never makes/,
    ],
    ['a table of its own', 'CREATE TABLE notes (x)', /a table "notes" that ocvector never makes/],
    ['an index of its own', 'CREATE INDEX files_by_size ON files(size)', /an index "files_by_size" that/],
    ['a column of its own', 'ALTER TABLE roots ADD COLUMN x TEXT', /a table "roots" unlike the one ocvector makes/],
    ['statistics for the query planner', 'ANALYZE', /a table "sqlite_stat[14]" that ocvector never makes/],
    [
      'a lexical table of another tokenizer',
      'DROP TABLE code_fts_1; CREATE VIRTUAL TABLE code_fts_1 USING fts5(code, tokenize = trigram)',
      /a table "code_fts_1" unlike the one ocvector makes/,
    ],
    ['no meta table', 'DROP TABLE meta', /holds no table "meta", which ocvector always makes/],
  ])('%s: refused by the searcher, naming what it found', async (_what, sql, message) => {
    const { indexDir } = await indexed();
    tamper(indexDir, sql);
    await expect(Searcher.open({ indexDir })).rejects.toMatchObject({
      ...UNTRUSTED,
      message: expect.stringMatching(message),
    });
  });

  it('every index ocvector writes, made new or migrated from each older schema, with 0 to 2 repositories, is accepted; the same with a trigger is not', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ocvector-schemas-'));
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    for (let from = 0; from <= SCHEMA_VERSION; from++)
      for (const roots of [0, 1, 2]) {
        const indexDir = join(scratch, `v${from}-r${roots}`);
        mkdirSync(indexDir);
        const db = openSqlite(join(indexDir, 'index.db'));
        writtenBy(db, from, roots);
        db.close();

        IndexStore.open(indexDir).close();
        const reader = IndexStore.open(indexDir, { readonly: true });
        expect(pragmaValue(reader.database, 'user_version')).toBe(SCHEMA_VERSION);
        reader.close();

        tamper(indexDir, `CREATE TRIGGER reroot AFTER UPDATE ON meta ${REROOT}`);
        expect(
          thrown(() => IndexStore.open(indexDir, { readonly: true })),
          `schema ${from}, ${roots} roots`,
        ).toMatchObject(UNTRUSTED);
      }
  });

  it('the schema an index is checked against, written out, is the one the migrations make', () => {
    expect(CURRENT_SCHEMA_ROWS).toEqual(madeSchemaRows(SCHEMA_VERSION));
  });

  it('every connection is defensive: trusted_schema off, sqlite_schema not writable, and nothing calls unsafeMode()', async () => {
    const { indexDir } = await indexed();
    for (const readonly of [false, true]) {
      const store = IndexStore.open(indexDir, { readonly });
      const db = store.database;
      expect(pragmaValue(db, 'trusted_schema')).toBe(0);
      if (!readonly) {
        setPragma(db, 'writable_schema = ON');
        expect(() => db.exec("UPDATE sqlite_schema SET sql = sql WHERE name = 'meta'")).toThrow(/may not be modified/);
      }
      store.close();
    }
    const unsafe = readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts'))
      .filter((path) => /\.unsafeMode\s*\(/.test(readFileSync(join(SOURCES, path), 'utf8')));
    expect(unsafe).toEqual([]);
  });
});

/** A database as ocvector wrote it at schema `version`, with `roots` repositories recorded before migration 5 where it had run. */
function writtenBy(db: Database.Database, version: number, roots: number): void {
  const repositoriesFrom = 5; // the schema that names repositories and gives each its own lexical tables
  for (let step = 0; step < version; step++) {
    if (step === repositoriesFrom - 1) addRoots(db, roots);
    const migration = MIGRATIONS[step]!;
    if (typeof migration === 'string') db.exec(migration);
    else migration(db);
  }
  if (version > 0 && version < repositoriesFrom) addRoots(db, roots);
  setPragma(db, `user_version = ${version}`);
  if (version > 0)
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL)');
}

function addRoots(db: Database.Database, count: number): void {
  for (let n = 1; n <= count; n++)
    prepared(db, 'INSERT INTO roots (path, created_at) VALUES (?, ?)').run(`/repo-${n}`, 0);
}

/** What a run threw (undefined when it did not): asserted after what it must not have done. */
function failureOf(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (error: unknown) => error,
  );
}

function thrown(work: () => void): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
}
