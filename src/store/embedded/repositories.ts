/**
 * The repositories (roots) of an index: each a directory indexed under a
 * name, with its own files, elements and lexical tables. Paths in the index
 * are relative to their repository's root. An index in a repository's default
 * place serves only the roots inside that repository (relocation.ts, servesRoot):
 * the others are kept as rows but never listed, searched or indexed from here.
 */
import type Database from 'better-sqlite3';
import { StoreError } from './database.js';
import { createLexicalTables, dropLexicalTables } from './lexical-tables.js';
import {
  type Confinement,
  confinementOf,
  findRelocation,
  relocated,
  type Relocation,
  servesRoot,
} from './relocation.js';
import { badRepositoryName, isRepositoryName } from '../repository-name.js';

import type { Repository, RepositoryCounts } from '../rows.js';
import { prepared } from './sqlite.js';
import type { VectorIndexEvent } from './vector-index-options.js';

const NO_MOVES: ReadonlyMap<number, string> = new Map();

const COLUMNS = 'id, name, path AS root, git_commit AS "commit", indexed_at AS indexedAt';

export class Repositories {
  readonly #db: Database.Database;
  /** Where the index moved, until a run writes its roots' new paths (relocation.ts). */
  #relocation: Relocation | undefined;
  /** The directory the roots served must lie in; undefined for an index kept in a directory of its own. */
  readonly #confinement: Confinement | undefined;

  /** `location`: the index's directory now, and the one recorded as holding it (IndexMeta.home). */
  constructor(db: Database.Database, location: { directory: string; home: string | undefined }) {
    this.#db = db;
    this.#confinement = confinementOf(location.directory);
    const roots = () => this.#stored().map((repository) => repository.root);
    this.#relocation = findRelocation(location.directory, roots, location.home);
  }

  /**
   * Writes the roots' paths as they lie after the index's move, and returns the move
   * (undefined when it moved none). A root whose new path another root holds keeps its own.
   */
  settleRelocation(): Relocation | undefined {
    const relocation = this.#relocation;
    const moves = this.#moves();
    const update = prepared(this.#db, 'UPDATE roots SET path = ? WHERE id = ?');
    for (const [id, root] of moves) update.run(root, id);
    this.#relocation = undefined;
    return moves.size > 0 ? relocation : undefined;
  }

  /** Every repository served, oldest first. */
  all(): Repository[] {
    return this.#everyRow().filter((repository) => this.#serves(repository));
  }

  /**
   * The repositories the index records outside the directory that holds it, where it
   * lies in a repository's default place: never served (see the file's comment).
   */
  outside(): Repository[] {
    if (this.#confinement === undefined) return [];
    return this.#everyRow().filter((repository) => !this.#serves(repository));
  }

  /** Says which repositories the index records outside its home, and so leaves out. */
  noteOutside(onEvent: ((event: VectorIndexEvent) => void) | undefined): void {
    if (!onEvent || this.#confinement === undefined) return;
    const { home } = this.#confinement;
    for (const { name, root } of this.outside()) onEvent({ type: 'repository-outside', repository: name, root, home });
  }

  /** Every repository's id, served or not: what a search's scope is compared with. */
  ids(): number[] {
    return prepared<[], number>(this.#db, 'SELECT id FROM roots ORDER BY id').pluck().all();
  }

  /** Every repository served, with its indexed files and their elements. */
  withCounts(): RepositoryCounts[] {
    const moves = this.#moves();
    return prepared<[], RepositoryCounts>(
      this.#db,
      `SELECT r.id, r.name, r.path AS root, r.git_commit AS "commit", r.indexed_at AS indexedAt,
         (SELECT count(*) FROM files f WHERE f.root_id = r.id AND f.status = 'indexed') AS files,
         (SELECT coalesce(sum(f.element_count), 0) FROM files f WHERE f.root_id = r.id) AS elements
       FROM roots r ORDER BY r.id`,
    )
      .all()
      .map((repository) => moved(repository, moves))
      .filter((repository) => this.#serves(repository));
  }

  /** The repository served under `name`. */
  byName(name: string): Repository | undefined {
    const repository = this.#named(name);
    return repository && this.#serves(repository) ? repository : undefined;
  }

  /** The repository served from `root`. */
  byRoot(root: string): Repository | undefined {
    if (this.#relocation) return this.all().find((repository) => repository.root === root);
    const repository = prepared<[string], Repository>(this.#db, `SELECT ${COLUMNS} FROM roots WHERE path = ?`).get(
      root,
    );
    return repository && this.#serves(repository) ? repository : undefined;
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
    if (!servesRoot(this.#confinement, root)) throw rootOutside(root, this.#confinement!.home);
    const here = this.byRoot(root);
    if (name === undefined && here) return here;
    const wanted = name ?? fallbackName;
    // A name recorded outside is taken too (its row holds it): named here, it moves here.
    const named = this.#named(wanted);
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

  /** Whether the index reads this repository (servesRoot). */
  #serves(repository: Repository): boolean {
    return servesRoot(this.#confinement, repository.root);
  }

  /** Every repository, served or not, where the index's move puts it, oldest first. */
  #everyRow(): Repository[] {
    const stored = this.#stored();
    const moves = this.#moves(stored);
    return stored.map((repository) => moved(repository, moves));
  }

  /** The repository of this name, served or not, where the index's move puts it. */
  #named(name: string): Repository | undefined {
    const repository = prepared<[string], Repository>(this.#db, `SELECT ${COLUMNS} FROM roots WHERE name = ?`).get(
      name,
    );
    return repository && moved(repository, this.#moves());
  }

  /** Every repository as its row records it, oldest first. */
  #stored(): Repository[] {
    return prepared<[], Repository>(this.#db, `SELECT ${COLUMNS} FROM roots ORDER BY id`).all();
  }

  /**
   * The roots the index's move puts elsewhere, by repository id (of `stored` where the caller
   * read the rows already): none where a root holds the new path already. Nothing is read
   * for an index that did not move.
   */
  #moves(stored?: readonly Repository[]): ReadonlyMap<number, string> {
    if (!this.#relocation) return NO_MOVES;
    stored ??= this.#stored();
    const moves = new Map<number, string>();
    const taken = new Set(stored.map((repository) => repository.root));
    for (const { id, root } of stored) {
      const movedTo = relocated(root, this.#relocation);
      if (!taken.has(movedTo)) moves.set(id, movedTo);
    }
    return moves;
  }

  /** Forgets every repository and its lexical tables (a rebuild). */
  removeAll(): void {
    for (const id of this.ids()) dropLexicalTables(this.#db, id);
    this.#db.exec('DELETE FROM roots');
  }
}

function moved<R extends Repository>(repository: R, moves: ReadonlyMap<number, string>): R {
  const root = moves.get(repository.id);
  return root === undefined ? repository : { ...repository, root };
}

function rootOutside(root: string, home: string): StoreError {
  return new StoreError(
    `${root} lies outside ${home}, whose index (.ocvector) serves the repositories inside it only: give an index of several repositories a directory of its own (--db <dir>, or { indexDir })`,
    'ROOT_OUTSIDE',
  );
}

function rootTaken(root: string, indexedAs: string, wanted: string): StoreError {
  return new StoreError(
    `${root} is indexed already as the repository ${indexedAs}: index it under that name, or drop it first (oc-vector-index --drop --repo ${indexedAs}) to index it as ${wanted}`,
    'NAME_TAKEN',
  );
}
