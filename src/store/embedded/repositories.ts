/**
 * The repositories (roots) of an index: each a directory indexed under a
 * name, with its own files, elements and lexical tables. Paths in the index
 * are relative to their repository's root.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { INDEX_DIR_NAME } from '../../files/root.js';
import { StoreError } from './database.js';
import { createLexicalTables, dropLexicalTables } from './lexical-tables.js';
import { badRepositoryName, isRepositoryName } from '../repository-name.js';

import type { Repository, RepositoryCounts } from '../rows.js';
import { prepared } from './sqlite.js';

const COLUMNS = 'id, name, path AS root, git_commit AS "commit", indexed_at AS indexedAt';

export class Repositories {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Every repository, oldest first. */
  all(): Repository[] {
    return prepared<[], Repository>(this.#db, `SELECT ${COLUMNS} FROM roots ORDER BY id`).all();
  }

  /** Every repository with its indexed files and their elements. */
  withCounts(): RepositoryCounts[] {
    return prepared<[], RepositoryCounts>(
      this.#db,
      `SELECT r.id, r.name, r.path AS root, r.git_commit AS "commit", r.indexed_at AS indexedAt,
         (SELECT count(*) FROM files f WHERE f.root_id = r.id AND f.status = 'indexed') AS files,
         (SELECT coalesce(sum(f.element_count), 0) FROM files f WHERE f.root_id = r.id) AS elements
       FROM roots r ORDER BY r.id`,
    ).all();
  }

  byName(name: string): Repository | undefined {
    return prepared<[string], Repository>(this.#db, `SELECT ${COLUMNS} FROM roots WHERE name = ?`).get(name);
  }

  byRoot(root: string): Repository | undefined {
    return prepared<[string], Repository>(this.#db, `SELECT ${COLUMNS} FROM roots WHERE path = ?`).get(root);
  }

  /**
   * The repository a run indexes `root` into (a write when new). A name
   * given names it: a repository of that name indexed from elsewhere moves
   * here (a CI checkout in a new directory each run; paths are relative, so
   * unchanged files stay unchanged). Without a name, the directory's own
   * repository, or a new one named `fallbackName`, which must be free.
   */
  ensure(root: string, name: string | undefined, fallbackName: string): Repository {
    if (name !== undefined && !isRepositoryName(name)) throw new StoreError(badRepositoryName(name), 'BAD_NAME');
    const here = this.byRoot(root);
    if (name === undefined && here) return here;
    const wanted = name ?? fallbackName;
    const named = this.byName(wanted);
    if (named) {
      if (named.root === root) return named;
      if (name === undefined)
        throw new StoreError(
          `a repository named ${wanted} is already indexed from ${named.root}: name this one with --repo <name> (or { repo }), or pass --repo ${wanted} to index ${root} as ${wanted} in its place`,
          'NAME_TAKEN',
        );
      // The same repository checked out elsewhere; a directory indexed under another name gives that root up.
      if (here) throw rootTaken(root, here.name, wanted);
      prepared(this.#db, 'UPDATE roots SET path = ? WHERE id = ?').run(root, named.id);
      return { ...named, root };
    }
    if (here) throw rootTaken(root, here.name, wanted);
    const id = Number(
      prepared(this.#db, 'INSERT INTO roots (path, name, created_at) VALUES (?, ?, ?)').run(root, wanted, Date.now())
        .lastInsertRowid,
    );
    createLexicalTables(this.#db, id);
    return { id, name: wanted, root, commit: null, indexedAt: null };
  }

  /** Records the end of a run over a repository. */
  markIndexed(id: number, commit: string | undefined, at: number): void {
    prepared(this.#db, 'UPDATE roots SET git_commit = ?, indexed_at = ? WHERE id = ?').run(commit ?? null, at, id);
  }

  /** Forgets a repository's row and its lexical tables (its files must be gone already). */
  remove(id: number): void {
    dropLexicalTables(this.#db, id);
    prepared(this.#db, 'DELETE FROM roots WHERE id = ?').run(id);
  }

  /** Forgets every repository and its lexical tables (a rebuild). */
  removeAll(): void {
    for (const { id } of this.all()) dropLexicalTables(this.#db, id);
    this.#db.exec('DELETE FROM roots');
  }
}

function rootTaken(root: string, indexedAs: string, wanted: string): StoreError {
  return new StoreError(
    `${root} is indexed already as the repository ${indexedAs}: index it under that name, or drop it first (oc-vector-index --drop --repo ${indexedAs}) to index it as ${wanted}`,
    'NAME_TAKEN',
  );
}

/**
 * The root an index was built for, when it sits in the default place of
 * another directory (`<dir>/.ocvector`) and covers none of that
 * directory: it was copied or moved there, and its answers would be about
 * files elsewhere.
 */
export function builtForElsewhere(directory: string, roots: Iterable<string>): string | undefined {
  if (basename(directory) !== INDEX_DIR_NAME) return undefined;
  const all = [...roots];
  // Compared as real paths: the same directory reached through a symbolic link is the same root.
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const here = real(dirname(resolve(directory)));
  return all.length > 0 && !all.some((root) => real(root) === here) ? all[0] : undefined;
}
