/**
 * The reads of one search over some repositories (../reads.ts's ScopeReads), in PostgreSQL, on
 * the client of the search's snapshot: BM25 through the lexical reader (scored as FTS5 scores,
 * lexical-sql.ts), and the rest as the embedded store's ../embedded/search-reader.ts asks SQLite, in the
 * same order. Text is ordered byte by byte (COLLATE "C"), as SQLite orders it.
 */
import type { Queryable } from './serial.js';
import { TEXT_ELEMENT_TYPES } from '../../analysis/element.js';
import { normalizeStem } from '../../files/rules.js';
import type { FilterConditions, IndexedFile } from '../reads.js';
import type { LexicalMatch, ScopeReads } from '../reads.js';
import type { ElementRecord, FileTermCounts } from '../rows.js';
import { filterSql } from './filter-sql.js';
import { LexicalReader } from './lexical-reader.js';
import { FILTER_FIRST_PARAMETER } from './lexical-sql.js';

/** Files named after a symbol, looked at most (../embedded/search-reader.ts's namedFiles). */
const MAX_NAMED_FILES = 20;
/** Pieces of text name nothing: they are never a symbol's definition. */
const TEXT_TYPES = [...TEXT_ELEMENT_TYPES];

/** The columns of a hit, as ../rows.ts's ElementRecord. */
const RECORD_COLUMNS = `e.id, e.file_id AS "fileId", e.element_type AS type, e.element_name AS name,
  e.start_line AS "startLine", e.end_line AS "endLine", e.start_byte AS "startByte", e.end_byte AS "endByte",
  e.signature, e.description, f.path, f.language, f.size, f.mtime_ms AS "mtimeMs", f.hash, f.repo_id AS "rootId"`;

export class PostgresScopeReads implements ScopeReads {
  readonly #db: Queryable;
  readonly #s: string;
  readonly #roots: number[];
  readonly #lexical: LexicalReader;

  /** Reads of the repositories `roots` (in the index's order) of the schema, on `db` (in the search's transaction). */
  constructor(db: Queryable, schema: string, s: string, roots: readonly number[]) {
    this.#db = db;
    this.#s = s;
    this.#roots = [...roots];
    this.#lexical = new LexicalReader(db, schema, roots);
  }

  elementHits(
    match: LexicalMatch | undefined,
    codeMatch: LexicalMatch | undefined,
    filters: FilterConditions,
    limit: number,
    codeWeight?: number,
  ) {
    return this.#lexical.elementHits(match, codeMatch, limit, codeWeight, filterSql(filters, FILTER_FIRST_PARAMETER));
  }

  async pathElements(paths: readonly string[], filters: FilterConditions, limit: number): Promise<number[]> {
    const filter = filterSql(filters, 4);
    const { rows } = await this.#db.query<{ id: number }>(
      `SELECT e.id FROM ${this.#s}.files f JOIN ${this.#s}.elements e ON e.repo_id = f.repo_id AND e.file_id = f.id
       WHERE f.repo_id = ANY($1::integer[]) AND EXISTS (SELECT 1 FROM unnest($2::text[]) p WHERE strpos(lower(f.path), p) > 0)
         AND ${filter.sql}
       ORDER BY length(f.path), f.path COLLATE "C", strpos(e.element_name, '.') > 0, e.start_line, e.id LIMIT $3`,
      [this.#roots, [...paths], limit, ...filter.params],
    );
    return rows.map((row) => row.id);
  }

  async definitions(names: readonly string[], filters: FilterConditions, limit: number): Promise<number[]> {
    if (names.length === 0) return [];
    const filter = filterSql(filters, 5);
    const { rows } = await this.#db.query<{ id: number }>(
      `SELECT e.id FROM ${this.#s}.elements e JOIN ${this.#s}.files f ON f.repo_id = e.repo_id AND f.id = e.file_id
       WHERE e.repo_id = ANY($1::integer[]) AND left(e.short_name, 256) = ANY(ARRAY(SELECT left(n, 256) FROM unnest($2::text[]) AS n))
         AND e.short_name = ANY($2::text[])
         AND e.element_type <> ALL($3::text[])
         AND ${filter.sql}
       ORDER BY e.short_name COLLATE "C", e.id LIMIT $4`,
      [this.#roots, names.map((name) => name.toLowerCase()), TEXT_TYPES, limit, ...filter.params],
    );
    return rows.map((row) => row.id);
  }

  async namedFiles(
    names: readonly string[],
    filters: FilterConditions,
    perFile: number,
  ): Promise<{ fileId: number; ids: number[] }[]> {
    const wanted = new Set(names.map(normalizeStem).filter((name) => name.length >= 3));
    if (wanted.size === 0) return [];
    // Compared on the server: only the files named come back, not every path of the scope.
    const { rows: named } = await this.#db.query<{ id: number; repo_id: number }>(
      `SELECT id, repo_id FROM ${this.#s}.files
       WHERE repo_id = ANY($1::integer[]) AND status = 'indexed'
         AND ${fileStemSql('path')} = ANY($2::text[])
       ORDER BY id LIMIT $3`,
      [this.#roots, [...wanted], MAX_NAMED_FILES],
    );
    if (named.length === 0) return [];
    const filter = filterSql(filters, 4);
    // Each file's first elements, in one read: ranked within the file by line.
    const { rows } = await this.#db.query<{ file_id: number; id: number }>(
      `SELECT file_id, id FROM (
         SELECT e.file_id, e.id, row_number() OVER (PARTITION BY e.file_id ORDER BY e.start_line, e.id) AS n
         FROM ${this.#s}.elements e JOIN ${this.#s}.files f ON f.repo_id = e.repo_id AND f.id = e.file_id
         WHERE e.repo_id = ANY($1::integer[]) AND e.file_id = ANY($2::bigint[]) AND ${filter.sql}
       ) ranked WHERE n <= $3 ORDER BY file_id, n`,
      [named.map((file) => file.repo_id), named.map((file) => file.id), perFile, ...filter.params],
    );
    const byFile = new Map<number, number[]>(named.map((file) => [file.id, []]));
    for (const row of rows) byFile.get(row.file_id)?.push(row.id);
    return named.map((file) => ({ fileId: file.id, ids: byFile.get(file.id)! }));
  }

  async rows(ids: readonly number[]): Promise<Map<number, ElementRecord>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.#db.query<ElementRecord>(
      `SELECT ${RECORD_COLUMNS} FROM ${this.#s}.elements e
       JOIN ${this.#s}.files f ON f.repo_id = e.repo_id AND f.id = e.file_id
       WHERE e.repo_id = ANY($1::integer[]) AND e.id = ANY($2::bigint[])`,
      [this.#roots, [...ids]],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  documentFrequencies(terms: readonly string[]) {
    return this.#lexical.documentFrequencies(terms);
  }

  matchesMoreThan(match: LexicalMatch, count: number, inCode = false) {
    return this.#lexical.matchesMoreThan(match, count, inCode);
  }

  matchCount(match: LexicalMatch) {
    return this.#lexical.matchCount(match);
  }

  async fileTermCounts(terms: readonly LexicalMatch[]): Promise<FileTermCounts> {
    const perTerm = await this.#lexical.fileTermCounts(terms);
    const fileIds = [...new Set(perTerm.flatMap((counts) => [...counts.keys()]))];
    const [sizes, totals] = await Promise.all([
      fileIds.length === 0
        ? { rows: [] }
        : this.#db.query<{ id: number; size: number }>(
            `SELECT id, element_count AS size FROM ${this.#s}.files WHERE repo_id = ANY($1::integer[]) AND id = ANY($2::bigint[])`,
            [this.#roots, fileIds],
          ),
      this.#db.query<{ files: number; averageSize: number | null }>(
        `SELECT count(*) AS files, avg(element_count)::float8 AS "averageSize" FROM ${this.#s}.files
         WHERE repo_id = ANY($1::integer[]) AND status = 'indexed'`,
        [this.#roots],
      ),
    ]);
    const { files, averageSize } = totals.rows[0]!;
    return {
      perTerm,
      sizes: new Map(sizes.rows.map((row) => [row.id, row.size])),
      files,
      averageSize: averageSize ?? 0,
    };
  }

  async files(): Promise<IndexedFile[]> {
    const { rows } = await this.#db.query<IndexedFile>(
      `SELECT id AS "fileId", repo_id AS "rootId", path FROM ${this.#s}.files
       WHERE repo_id = ANY($1::integer[]) AND status = 'indexed' ORDER BY repo_id, id`,
      [this.#roots],
    );
    return rows;
  }

  async elementCount(): Promise<number> {
    const { rows } = await this.#db.query<{ n: number }>(
      `SELECT coalesce(sum(element_count), 0)::bigint AS n FROM ${this.#s}.files WHERE repo_id = ANY($1::integer[])`,
      [this.#roots],
    );
    return rows[0]!.n;
  }

  async elementIds(): Promise<number[]> {
    const { rows } = await this.#db.query<{ id: number }>(
      `SELECT id FROM ${this.#s}.elements WHERE repo_id = ANY($1::integer[]) ORDER BY id`,
      [this.#roots],
    );
    return rows.map((row) => row.id);
  }
}

/** A path's file name as fileStem and normalizeStem make it (files/rules.ts), in SQL: `querymanager` for `src/Query_Manager.test.ts`. */
export function fileStemSql(path: string): string {
  return `translate(lower(substring(regexp_replace(${path}, '^.*/', '') from '^.[^.]*')), '_-$', '')`;
}
