/**
 * The reads a search makes, as named queries: BM25 over elements, the
 * elements of named paths and files and of a named symbol, term
 * statistics, and the rows of hits. The SQL lives here, beside the schema
 * it reads; filters arrive compiled (search/filters.ts) against the aliases
 * `e` (elements) and `f` (files) used below.
 */
import type { Statement } from 'better-sqlite3';
import { TEXT_ELEMENT_TYPES } from '../analysis/element.js';
import { fileStem } from '../files/rules.js';
import type Database from 'better-sqlite3';
import { ElementFiles } from './element-files.js';
import { databaseOf, type IndexStore } from './store.js';
import { pragmaValue, prepared, setPragma } from './sqlite.js';
import type { ElementRow } from './rows.js';

export interface FilterSql {
  /** A condition over `e` and `f`, and its parameters. */
  sql: string;
  params: (string | number)[];
  active: boolean;
}

export interface FileTermCounts {
  /** For each query term: file id -> how many of the file's elements hold it. */
  perTerm: readonly ReadonlyMap<number, number>[];
  /** Elements per file, for the files any term occurs in. */
  sizes: ReadonlyMap<number, number>;
  /** Indexed files, and their mean number of elements. */
  files: number;
  averageSize: number;
}

export interface IdScore {
  id: number;
  /** Higher is better (BM25 negated: FTS5 gives it lower-is-better). */
  score: number;
}

/** A hit as a search reads it: its stored row's columns (its vector id as `id`) joined with its file's. */
export interface ElementRecord
  extends Pick<
    ElementRow,
    'fileId' | 'type' | 'name' | 'startLine' | 'endLine' | 'startByte' | 'endByte' | 'signature' | 'description'
  > {
  id: number;
  path: string;
  language: string | null;
  size: number;
  mtimeMs: number;
  hash: string | null;
  rootId: number;
}

/** BM25 column weights of elements_fts: name, signature, description, path. */
const ELEMENT_BM25 = 'bm25(elements_fts, 4.0, 2.0, 1.0, 0.5)';
/** The weight of code_fts's BM25 beside elements_fts's (0.15 and 0.5 did less well on the benchmark and the evaluation sets). */
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

export class SearchReader {
  readonly #db: Database.Database;
  readonly #sql;
  /** This generation's element-to-file map: how often it was done without, and the map once read (undefined when too sparse). */
  #elementFiles: { generation: number; countsBySql: number; read: boolean; map: ElementFiles | undefined } = {
    generation: Number.NaN,
    countsBySql: 0,
    read: false,
    map: undefined,
  };

  constructor(store: IndexStore) {
    const db = (this.#db = databaseOf(store));
    createVocabularyView(db);
    this.#sql = {
      documentFrequency: prepared<[string], { doc: number }>(db, 'SELECT doc FROM temp.elements_vocab WHERE term = ?'),
      // Ranked by an alias, so FTS5 computes each row's BM25 once.
      elements: prepared<[string, number], { id: number; rank: number }>(
        db,
        `SELECT rowid AS id, ${ELEMENT_BM25} AS rank FROM elements_fts WHERE elements_fts MATCH ? ORDER BY rank LIMIT ?`,
      ),
      code: prepared<[string, number], { id: number; rank: number }>(
        db,
        'SELECT rowid AS id, bm25(code_fts) AS rank FROM code_fts WHERE code_fts MATCH ? ORDER BY rank LIMIT ?',
      ),
      // Is there a row past the threshold? Cheaper than counting them all.
      beyond: prepared<[string, number], { found: number }>(
        db,
        'SELECT 1 AS found FROM elements_fts WHERE elements_fts MATCH ? LIMIT 1 OFFSET ?',
      ),
      elementMatches: prepared<[string], number>(
        db,
        'SELECT rowid FROM elements_fts WHERE elements_fts MATCH ?',
      ).pluck(),
      codeMatches: prepared<[string], number>(db, 'SELECT rowid FROM code_fts WHERE code_fts MATCH ?').pluck(),
      codeBeyond: prepared<[string, number], { found: number }>(
        db,
        'SELECT 1 AS found FROM code_fts WHERE code_fts MATCH ? LIMIT 1 OFFSET ?',
      ),
      count: prepared<[string], { n: number }>(db, 'SELECT count(*) AS n FROM elements_fts WHERE elements_fts MATCH ?'),
      // An element holds a term in its names and description or in its code.
      // Grouped before the join: one lookup in files per file, not per element.
      fileTermCounts: prepared<[string, string], { fileId: number; n: number; size: number }>(
        db,
        `SELECT g.fileId, g.n, f.element_count AS size FROM (
           SELECT e.file_id AS fileId, count(*) AS n FROM elements e
           WHERE e.vector_id IN (SELECT rowid FROM elements_fts WHERE elements_fts MATCH ? UNION SELECT rowid FROM code_fts WHERE code_fts MATCH ?)
           GROUP BY e.file_id
         ) g JOIN files f ON f.id = g.fileId`,
      ),
      fileSizes: prepared<[], { files: number; averageSize: number | null }>(
        db,
        "SELECT count(*) AS files, avg(element_count) AS averageSize FROM files WHERE status = 'indexed'",
      ),
      fileStems: prepared<[], { id: number; path: string }>(db, "SELECT id, path FROM files WHERE status = 'indexed'"),
      rows: prepared<[string], ElementRecord>(
        db,
        `SELECT e.vector_id AS id, e.file_id AS fileId, e.element_type AS type, e.element_name AS name, e.start_line AS startLine, e.end_line AS endLine,
           e.start_byte AS startByte, e.end_byte AS endByte, e.signature, e.description, f.path, f.language, f.size, f.mtime_ms AS mtimeMs, f.hash, f.root_id AS rootId
         FROM elements e JOIN files f ON f.id = e.file_id WHERE e.vector_id IN (SELECT value FROM json_each(?))`,
      ),
    };
  }

  /**
   * BM25 over elements, best first, filtered in SQL (the join is paid only
   * when a filter needs it): over their names, signatures, descriptions and
   * paths, plus `codeWeight` times BM25 over their own code (`codeMatch`,
   * which may leave out terms too common in code to be worth reading).
   */
  elementHits(
    match: string | undefined,
    codeMatch: string | undefined,
    filters: FilterSql,
    limit: number,
    codeWeight = CODE_WEIGHT,
  ): IdScore[] {
    const names = match
      ? this.#bm25('elements_fts', ELEMENT_BM25, this.#sql.elements, match, filters, limit).map(({ id, rank }) => ({
          id,
          score: -rank,
        }))
      : [];
    const code = codeMatch
      ? this.#bm25('code_fts', 'bm25(code_fts)', this.#sql.code, codeMatch, filters, limit).map(({ id, rank }) => ({
          id,
          score: -codeWeight * rank,
        }))
      : [];
    return sumById([names, code]);
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
         WHERE f.id IN (SELECT pf.id FROM json_each(?) p CROSS JOIN files pf WHERE instr(lower(pf.path), p.value) > 0) AND ${filters.sql}
         ORDER BY length(f.path), f.path, instr(e.element_name, '.') > 0, e.start_line LIMIT ?`,
    )
      .all(JSON.stringify(paths), ...filters.params, limit)
      .map((row) => row.id);
  }

  /** Elements named `name` (the last segment of their qualified name, any case) that are not pieces of text. */
  definitions(names: readonly string[], filters: FilterSql, limit: number): number[] {
    if (names.length === 0) return [];
    return prepared<unknown[], { id: number }>(
      this.#db,
      `SELECT e.vector_id AS id FROM elements e JOIN files f ON f.id = e.file_id
         WHERE e.short_name IN (SELECT value FROM json_each(?)) AND e.element_type NOT IN (${TEXT_TYPES_SQL}) AND ${filters.sql}
         LIMIT ?`,
    )
      .all(JSON.stringify(names.map((name) => name.toLowerCase())), ...filters.params, limit)
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
    const files = this.#sql.fileStems.all().filter((file) => wanted.has(normalizeStem(fileStem(file.path))));
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
    return this.#sql.documentFrequency.get(term)?.doc;
  }

  /** Whether more than `count` elements match an expression, in their names and descriptions or in their code. */
  matchesMoreThan(match: string, count: number, inCode = false): boolean {
    return (inCode ? this.#sql.codeBeyond : this.#sql.beyond).get(match, count) !== undefined;
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
    const { files, averageSize } = this.#sql.fileSizes.get()!;
    return { perTerm, sizes, files, averageSize: averageSize ?? 0 };
  }

  #elementFilesOf(generation: number): ElementFiles | undefined {
    if (this.#elementFiles.generation !== generation)
      this.#elementFiles = { generation, countsBySql: 0, read: false, map: undefined };
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
    const counts = map.countByFile([this.#sql.elementMatches.all(term), this.#sql.codeMatches.all(term)]);
    for (const file of counts.keys()) sizes.set(file, map.sizeOf(file)!);
    return counts;
  }

  /** The same, asked of SQLite: a table lookup per match. */
  #countsBySql(term: string, sizes: Map<number, number>): Map<number, number> {
    const counts = new Map<number, number>();
    for (const { fileId, n, size } of this.#sql.fileTermCounts.all(term, term)) {
      counts.set(fileId, n);
      sizes.set(fileId, size);
    }
    return counts;
  }

  matchCount(match: string): number {
    return this.#sql.count.get(match)!.n;
  }
}

/** Scores of several lists summed by id, best first. */
export function sumById(lists: readonly (readonly IdScore[])[]): IdScore[] {
  const scores = new Map<number, number>();
  for (const list of lists) for (const { id, score } of list) scores.set(id, (scores.get(id) ?? 0) + score);
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}

/** Case and separators folded: `query_manager`, `QueryManager` and `query-manager` meet. */
function normalizeStem(name: string): string {
  return name.toLowerCase().replace(/[_\-$]/g, '');
}

/**
 * A view of FTS5's term statistics in the connection's own temp schema.
 * `query_only` refuses even temp tables, so it is lifted for this one
 * statement; the index file is never written.
 */
function createVocabularyView(db: Database.Database): void {
  const queryOnly = pragmaValue(db, 'query_only') === 1;
  if (queryOnly) setPragma(db, 'query_only = OFF');
  try {
    db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.elements_vocab USING fts5vocab(main, elements_fts, row)');
  } finally {
    if (queryOnly) setPragma(db, 'query_only = ON');
  }
}
