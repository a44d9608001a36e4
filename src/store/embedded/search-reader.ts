/**
 * The reads a search makes, as named queries: BM25 over elements, the
 * elements of named paths and files and of a named symbol, term
 * statistics, and the rows of hits. The SQL lives here, beside the schema
 * it reads; filters arrive compiled (search/filters.ts) against the aliases
 * `e` (elements) and `f` (files) used below.
 */
import type { Statement } from 'better-sqlite3';
import { TEXT_ELEMENT_TYPES } from '../../analysis/element.js';
import { fileStem, normalizeStem } from '../../files/rules.js';
import type Database from 'better-sqlite3';
import { ElementFiles } from './element-files.js';
import type { IndexStore } from './index-store.js';
import { lexicalTables, type LexicalTableNames } from './lexical-tables.js';
import { pragmaValue, prepared, setPragma } from './sqlite.js';
import type { ElementRecord, FileTermCounts } from '../rows.js';
import type { IndexedFile } from '../reads.js';
import { sumById, type IdScore } from '../id-scores.js';

export interface FilterSql {
  /** A condition over `e` and `f`, and its parameters. */
  sql: string;
  params: (string | number)[];
  active: boolean;
}

/** The weight of code BM25 beside names BM25 (0.15 and 0.5 did less well on the benchmark and the evaluation sets). */
const CODE_WEIGHT = 0.3;
/**
 * Whole-file counts asked of SQLite this many times per index generation
 * before the element-to-file map is read (ElementFiles): a process that
 * searches once (the CLI) does not pay for reading it, a long-lived one
 * (the MCP server, an agent's tool) reads it once and counts faster.
 */
const COUNTS_BEFORE_MAP = 2;
/** Pieces of text name nothing: they are never a symbol's definition. */
const TEXT_TYPES_SQL = TEXT_ELEMENT_TYPES.map((type) => `'${type}'`).join(', ');

/** One repository's lexical tables and the statements that read them. */
interface RootTables {
  rootId: number;
  elements: Statement<[string, number], { id: number; rank: number }>;
  code: Statement<[string, number], { id: number; rank: number }>;
  beyond: Statement<[string, number], { found: number }>;
  codeBeyond: Statement<[string, number], { found: number }>;
  elementMatches: Statement<[string], number>;
  codeMatches: Statement<[string], number>;
  count: Statement<[string], { n: number }>;
  countUpTo: Statement<[string, number], { n: number }>;
  codeCountUpTo: Statement<[string, number], { n: number }>;
  fileTermCounts: Statement<[string, string], { fileId: number; n: number; size: number }>;
  documentFrequency: Statement<[string], { doc: number }>;
  names: LexicalTableNames;
}

/**
 * A term in this many files or more has its counts per file kept, for the generation: the
 * common words of a sentence (`content`, `request`, `handle`) come back query after query,
 * and reading one's matches costs a millisecond or more in a large index.
 */
const COMMON_TERM_FILES = 100;
/** Counts (file, count) kept at most over all terms, the first term kept going first: about 16 MiB. */
const MAX_COMMON_COUNTS = 250_000;

interface ElementFilesState {
  generation: number;
  /** How often counts were read without the map. */
  countsBySql: number;
  read: boolean;
  /** The map once read (undefined when too sparse). */
  map: ElementFiles | undefined;
  /** Counts per file of the common terms read through the map, by term (COMMON_TERM_FILES), and how many in all. */
  common: Map<string, Map<number, number>>;
  commonCounts: number;
}

/** A generation's state before any read: no map yet, no counts kept. */
function freshElementFiles(generation: number): ElementFilesState {
  return { generation, countsBySql: 0, read: false, map: undefined, common: new Map(), commonCounts: 0 };
}

export class SearchReader {
  readonly #db: Database.Database;
  readonly #sql;
  /** The repositories searched, each with its lexical tables. */
  readonly #tables: readonly RootTables[];
  /** The scope as a condition on `f` (nothing when it is every repository), and its parameter. */
  readonly #scope: { sql: string; params: string[] };
  /** The same condition over the alias `f` of the reads that join files. */
  readonly #scopeOfF: string;
  /** This generation's element-to-file map, and the counts per file of its common terms. */
  #elementFiles: ElementFilesState = freshElementFiles(Number.NaN);

  /**
   * A reader of some repositories (root ids) of the index: BM25 over their
   * own tables (with their own statistics), and every other read kept to
   * them. All of them by default.
   */
  constructor(store: IndexStore, roots?: readonly number[]) {
    const db = (this.#db = store.database);
    // Every repository recorded, served or not: a scope that leaves any out is kept to its own.
    const every = store.repositories.ids();
    const scope = roots ?? every;
    this.#tables = scope.map((rootId) => rootTables(db, rootId));
    const all = every.every((id) => scope.includes(id));
    this.#scope = all
      ? { sql: '', params: [] }
      : { sql: ' AND root_id IN (SELECT value FROM json_each(?))', params: [JSON.stringify(scope)] };
    this.#scopeOfF = this.#scope.sql.replace('root_id', 'f.root_id');
    this.#sql = {
      fileSizes: prepared<string[], { files: number; averageSize: number | null }>(
        db,
        `SELECT count(*) AS files, avg(element_count) AS averageSize FROM files WHERE status = 'indexed'${this.#scope.sql}`,
      ),
      fileStems: prepared<string[], { id: number; path: string }>(
        db,
        `SELECT id, path FROM files WHERE status = 'indexed'${this.#scope.sql}`,
      ),
      files: prepared<string[], IndexedFile>(
        db,
        `SELECT id AS fileId, root_id AS rootId, path FROM files WHERE status = 'indexed'${this.#scope.sql} ORDER BY id`,
      ),
      elementCount: prepared<string[], { n: number }>(
        db,
        `SELECT coalesce(sum(element_count), 0) AS n FROM files WHERE 1${this.#scope.sql}`,
      ),
      scopeIds: prepared<string[], number>(
        db,
        `SELECT e.vector_id FROM elements e WHERE e.file_id IN (SELECT id FROM files WHERE 1${this.#scope.sql}) ORDER BY e.vector_id`,
      ).pluck(),
      rows: prepared<[string], ElementRecord>(
        db,
        `SELECT e.vector_id AS id, e.file_id AS fileId, e.element_type AS type, e.element_name AS name, e.start_line AS startLine, e.end_line AS endLine,
           e.start_byte AS startByte, e.end_byte AS endByte, e.signature, e.description, f.path, f.language, f.size, f.mtime_ms AS mtimeMs, f.hash, f.root_id AS rootId
         FROM elements e JOIN files f ON f.id = e.file_id WHERE e.vector_id IN (SELECT value FROM json_each(?))`,
      ),
    };
  }

  /** Elements in the searched repositories, as their files record them. */
  elementCount(): number {
    return this.#sql.elementCount.get(...this.#scope.params)!.n;
  }

  /** The indexed files of the searched repositories. */
  files(): IndexedFile[] {
    return this.#sql.files.all(...this.#scope.params);
  }

  /** The vector ids of the searched repositories' elements, ascending (what a scoped k-NN may return). */
  elementIds(): number[] {
    return this.#sql.scopeIds.all(...this.#scope.params);
  }

  /**
   * BM25 over elements, best first, filtered in SQL (the join is paid only
   * when a filter needs it): over their names, signatures, descriptions and
   * paths, plus `codeWeight` times BM25 over their own code (`codeMatch`,
   * which may leave out terms too common in code to be worth reading).
   * Over several repositories, each ranks by its own statistics, and the
   * best `limit` of all are kept.
   */
  elementHits(
    match: string | undefined,
    codeMatch: string | undefined,
    filters: FilterSql,
    limit: number,
    codeWeight = CODE_WEIGHT,
  ): IdScore[] {
    const names = match
      ? this.#acrossRoots(limit, (t) =>
          this.#bm25(t.names.elements, elementBm25(t.names), t.elements, match, filters, limit),
        ).map(({ id, rank }) => ({ id, score: -rank }))
      : [];
    const code = codeMatch
      ? this.#acrossRoots(limit, (t) =>
          this.#bm25(t.names.code, `bm25(${t.names.code})`, t.code, codeMatch, filters, limit),
        ).map(({ id, rank }) => ({ id, score: -codeWeight * rank }))
      : [];
    return sumById([names, code]);
  }

  /** One read per repository, merged best first (lowest rank), the best `limit` kept. */
  #acrossRoots(
    limit: number,
    read: (tables: RootTables) => { id: number; rank: number }[],
  ): { id: number; rank: number }[] {
    if (this.#tables.length === 1) return read(this.#tables[0]!);
    return this.#tables
      .flatMap(read)
      .sort((a, b) => a.rank - b.rank)
      .slice(0, limit);
  }

  #bm25(
    table: string,
    rank: string,
    unfiltered: Statement<[string, number], { id: number; rank: number }>,
    match: string,
    filters: FilterSql,
    limit: number,
  ): { id: number; rank: number }[] {
    if (!filters.active) return unfiltered.all(match, limit);
    return prepared<unknown[], { id: number; rank: number }>(
      this.#db,
      `SELECT e.vector_id AS id, ${rank} AS rank FROM ${table} JOIN elements e ON e.vector_id = ${table}.rowid JOIN files f ON f.id = e.file_id
         WHERE ${table} MATCH ? AND ${filters.sql} ORDER BY rank LIMIT ?`,
    ).all(match, ...filters.params, limit);
  }
  /** The elements of the files whose path contains one of `paths` (lower case), outermost first, in file order. */
  pathElements(paths: readonly string[], filters: FilterSql, limit: number): number[] {
    return prepared<unknown[], { id: number }>(
      this.#db,
      `SELECT e.vector_id AS id FROM elements e JOIN files f ON f.id = e.file_id
         WHERE f.id IN (SELECT pf.id FROM json_each(?) p CROSS JOIN files pf WHERE instr(lower(pf.path), p.value) > 0) AND ${filters.sql}${this.#scopeOfF}
         ORDER BY length(f.path), f.path, instr(e.element_name, '.') > 0, e.start_line LIMIT ?`,
    )
      .all(JSON.stringify(paths), ...filters.params, ...this.#scope.params, limit)
      .map((row) => row.id);
  }

  /** Elements named `name` (the last segment of their qualified name, any case) that are not pieces of text. */
  definitions(names: readonly string[], filters: FilterSql, limit: number): number[] {
    if (names.length === 0) return [];
    return prepared<unknown[], { id: number }>(
      this.#db,
      `SELECT e.vector_id AS id FROM elements e JOIN files f ON f.id = e.file_id
         WHERE e.short_name IN (SELECT value FROM json_each(?)) AND e.element_type NOT IN (${TEXT_TYPES_SQL}) AND ${filters.sql}${this.#scopeOfF}
         LIMIT ?`,
    )
      .all(JSON.stringify(names.map((name) => name.toLowerCase())), ...filters.params, ...this.#scope.params, limit)
      .map((row) => row.id);
  }

  /**
   * Files named after a symbol (`Router` -> Routing/Router.php,
   * query_manager.rb for `QueryManager`), each with its first elements in
   * file order: where a language without a parser defines its main type.
   */
  namedFiles(names: readonly string[], filters: FilterSql, perFile: number): { fileId: number; ids: number[] }[] {
    const wanted = new Set(names.map(normalizeStem).filter((name) => name.length >= 3));
    if (wanted.size === 0) return [];
    const files = this.#sql.fileStems
      .all(...this.#scope.params)
      .filter((file) => wanted.has(normalizeStem(fileStem(file.path))));
    const firstElements = prepared<unknown[], { id: number }>(
      this.#db,
      `SELECT e.vector_id AS id FROM elements e JOIN files f ON f.id = e.file_id WHERE e.file_id = ? AND ${filters.sql} ORDER BY e.start_line LIMIT ?`,
    );
    return files.slice(0, 20).map((file) => ({
      fileId: file.id,
      ids: firstElements.all(file.id, ...filters.params, perFile).map((row) => row.id),
    }));
  }

  /** The rows of these elements, by id (an id gone since is absent). */
  rows(ids: readonly number[]): Map<number, ElementRecord> {
    if (ids.length === 0) return new Map();
    return new Map(this.#sql.rows.all(JSON.stringify(ids)).map((row) => [row.id, row]));
  }

  /** In how many elements a (stemmed) term occurs, per FTS5's own counts; undefined when none. */
  documentFrequency(term: string): number | undefined {
    let total = 0;
    for (const t of this.#tables) total += t.documentFrequency.get(term)?.doc ?? 0;
    return total > 0 ? total : undefined;
  }

  /** Whether more than `count` elements match an expression, in their names and descriptions or in their code. */
  matchesMoreThan(match: string, count: number, inCode = false): boolean {
    if (this.#tables.length === 1) {
      const t = this.#tables[0]!;
      return (inCode ? t.codeBeyond : t.beyond).get(match, count) !== undefined;
    }
    // Each table counted only as far as the rows still needed: a common term never reads its whole list.
    let seen = 0;
    for (const t of this.#tables) {
      seen += (inCode ? t.codeCountUpTo : t.countUpTo).get(match, count + 1 - seen)!.n;
      if (seen > count) return true;
    }
    return false;
  }

  /**
   * For BM25 over whole files: per term (an FTS5 expression), how many
   * elements of each file hold it, in the names' or in the code's table.
   * `generation` is the index's, which the element-to-file map must match.
   */
  fileTermCounts(terms: readonly string[], generation: number): FileTermCounts {
    const map = this.#elementFilesOf(generation);
    const sizes = new Map<number, number>();
    const perTerm = terms.map((term) => (map ? this.#countsByMap(map, term, sizes) : this.#countsBySql(term, sizes)));
    const { files, averageSize } = this.#sql.fileSizes.get(...this.#scope.params)!;
    return { perTerm, sizes, files, averageSize: averageSize ?? 0 };
  }

  #elementFilesOf(generation: number): ElementFiles | undefined {
    if (this.#elementFiles.generation !== generation) this.#elementFiles = freshElementFiles(generation);
    const state = this.#elementFiles;
    if (!state.read) {
      if (state.countsBySql++ < COUNTS_BEFORE_MAP) return undefined;
      state.map = ElementFiles.read(this.#db);
      state.read = true;
    }
    return state.map;
  }

  /** One term's counts per file, through the map; the files' sizes added to `sizes`. */
  #countsByMap(map: ElementFiles, term: string, sizes: Map<number, number>): Map<number, number> {
    const state = this.#elementFiles;
    let counts = state.common.get(term);
    if (!counts) {
      const matches = this.#tables.flatMap((t) => [t.elementMatches.all(term), t.codeMatches.all(term)]);
      counts = map.countByFile(matches);
      if (counts.size >= COMMON_TERM_FILES && counts.size <= MAX_COMMON_COUNTS) {
        for (const [oldest, kept] of state.common) {
          if (state.commonCounts + counts.size <= MAX_COMMON_COUNTS) break;
          state.common.delete(oldest);
          state.commonCounts -= kept.size;
        }
        state.common.set(term, counts);
        state.commonCounts += counts.size;
      }
    }
    for (const file of counts.keys()) sizes.set(file, map.sizeOf(file)!);
    return counts;
  }

  /** The same, asked of SQLite: a table lookup per match. */
  #countsBySql(term: string, sizes: Map<number, number>): Map<number, number> {
    const counts = new Map<number, number>();
    for (const t of this.#tables)
      for (const { fileId, n, size } of t.fileTermCounts.all(term, term)) {
        counts.set(fileId, n);
        sizes.set(fileId, size);
      }
    return counts;
  }

  matchCount(match: string): number {
    let total = 0;
    for (const t of this.#tables) total += t.count.get(match)!.n;
    return total;
  }
}

/** BM25 over a repository's element table, with the column weights: name, signature, description, path. */
function elementBm25(names: LexicalTableNames): string {
  return `bm25(${names.elements}, 4.0, 2.0, 1.0, 0.5)`;
}

/** The statements over one repository's lexical tables (their SQL is fixed per repository: see sqlite.ts). */
function rootTables(db: Database.Database, rootId: number): RootTables {
  const names = lexicalTables(rootId);
  const { elements: el, code } = names;
  const vocabulary = createVocabularyView(db, names, rootId);
  return {
    rootId,
    names,
    // Ranked by an alias, so FTS5 computes each row's BM25 once.
    elements: prepared(
      db,
      `SELECT rowid AS id, ${elementBm25(names)} AS rank FROM ${el} WHERE ${el} MATCH ? ORDER BY rank LIMIT ?`,
    ),
    code: prepared(
      db,
      `SELECT rowid AS id, bm25(${code}) AS rank FROM ${code} WHERE ${code} MATCH ? ORDER BY rank LIMIT ?`,
    ),
    // Is there a row past the threshold? Cheaper than counting them all.
    beyond: prepared(db, `SELECT 1 AS found FROM ${el} WHERE ${el} MATCH ? LIMIT 1 OFFSET ?`),
    codeBeyond: prepared(db, `SELECT 1 AS found FROM ${code} WHERE ${code} MATCH ? LIMIT 1 OFFSET ?`),
    elementMatches: prepared<[string], number>(db, `SELECT rowid FROM ${el} WHERE ${el} MATCH ?`).pluck(),
    codeMatches: prepared<[string], number>(db, `SELECT rowid FROM ${code} WHERE ${code} MATCH ?`).pluck(),
    count: prepared<[string], { n: number }>(db, `SELECT count(*) AS n FROM ${el} WHERE ${el} MATCH ?`),
    countUpTo: prepared<[string, number], { n: number }>(
      db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${el} WHERE ${el} MATCH ? LIMIT ?)`,
    ),
    codeCountUpTo: prepared<[string, number], { n: number }>(
      db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${code} WHERE ${code} MATCH ? LIMIT ?)`,
    ),
    // An element holds a term in its names and description or in its code.
    // Grouped before the join: one lookup in files per file, not per element.
    fileTermCounts: prepared(
      db,
      `SELECT g.fileId, g.n, f.element_count AS size FROM (
         SELECT e.file_id AS fileId, count(*) AS n FROM elements e
         WHERE e.vector_id IN (SELECT rowid FROM ${el} WHERE ${el} MATCH ? UNION SELECT rowid FROM ${code} WHERE ${code} MATCH ?)
         GROUP BY e.file_id
       ) g JOIN files f ON f.id = g.fileId`,
    ),
    documentFrequency: prepared<[string], { doc: number }>(db, `SELECT doc FROM temp.${vocabulary} WHERE term = ?`),
  };
}

/**
 * A view of a repository's FTS5 term statistics in the connection's own
 * temp schema. `query_only` refuses even temp tables, so it is lifted for
 * this one statement; the index file is never written.
 */
function createVocabularyView(db: Database.Database, names: LexicalTableNames, rootId: number): string {
  const view = `elements_vocab_${rootId}`;
  const queryOnly = pragmaValue(db, 'query_only') === 1;
  if (queryOnly) setPragma(db, 'query_only = OFF');
  try {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${view} USING fts5vocab(main, ${names.elements}, row)`);
  } finally {
    if (queryOnly) setPragma(db, 'query_only = ON');
  }
  return view;
}
