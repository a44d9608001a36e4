/**
 * The lexical reads a search makes (../embedded/search-reader.ts's, for the Postgres store), over some
 * repositories: BM25 over a table for query terms OR-ed or AND-ed, scored as FTS5 scores them
 * (lexical-sql.ts), with each repository's own statistics and their lists merged best first;
 * how many elements hold a term; whether more than N match; how many match; per file, how many
 * of its elements match.
 *
 * A query is what search/query.ts's ftsExpression is given: terms, each of which FTS5 reads
 * quoted. A term is tokenized as FTS5 tokenizes it (text/fts-tokens.ts). Most give one token.
 * None matches nothing. Several are a phrase: that happens (a query word holding one of the 21
 * code points JavaScript counts as letters and SQLite's older tables do not, as U+19B0 or
 * U+1CF2, splits there), so phrases are matched as FTS5 does, in the stored texts of the
 * elements holding all their tokens. Those reads and the scoring then share one snapshot.
 */
import pg from 'pg';
import type { Queryable } from './serial.js';
import {
  countSql,
  documentFrequenciesSql,
  documentFrequencySql,
  fileCountSql,
  phraseCandidatesSql,
  scoreSql,
} from './lexical-sql.js';
import { phraseCounts, queryTokens, TABLE_ID, TF_COLUMNS, termKey, type LexicalTable } from './lexical-terms.js';
import { quoteSchema } from './schema.js';
import { inTransaction } from './transaction.js';
import { sumById, type IdScore } from '../id-scores.js';
import type { FilterSql } from './filter-sql.js';

export interface LexicalQuery {
  /** Terms, as ftsExpression takes them (each quoted, so never read as FTS syntax). */
  terms: readonly string[];
  /** Every term must match (FTS5's AND); by default any (OR). */
  all?: boolean | undefined;
}

export type { IdScore } from '../id-scores.js';

/** The weight of code BM25 beside names BM25: ../embedded/search-reader.ts's CODE_WEIGHT. */
const CODE_WEIGHT = 0.3;

/** A pool (each read in a transaction of its own), or one connection in the caller's transaction. */
type Db = pg.Pool | Queryable;

/** A query, resolved: its slots' tokens and the parameters every statement shares. */
interface Plan {
  /** Nothing can match (no terms; an AND with a term of no tokens). */
  none: boolean;
  slots: number;
  all: boolean;
  /** Per slot: its one token, or null. */
  singles: (string | null)[];
  /** Slots of several tokens (1-based, as in SQL), with their tokens. */
  phrases: { slot: number; tokens: string[] }[];
}

export class LexicalReader {
  readonly #db: Db;
  readonly #s: string;
  readonly #repos: number[];

  /**
   * A reader of some repositories of the schema `schema`, in this order (ties between them go
   * to the first, as SearchReader merges its roots). `db` a pool, or a client (in a transaction
   * of the caller's, whose snapshot it then reads).
   */
  constructor(db: Db, schema: string, repoIds: readonly number[]) {
    for (const id of repoIds) if (!Number.isSafeInteger(id)) throw new TypeError(`not a repository id: ${id}`);
    this.#db = db;
    this.#s = quoteSchema(schema);
    this.#repos = [...repoIds];
  }

  /**
   * The best `limit` elements of one table for a query, scored as FTS5's bm25() (negated), best
   * first; with `filter` (filter-sql.ts, its parameters from $14), only the elements it keeps.
   */
  async bm25(table: LexicalTable, query: LexicalQuery, limit: number, filter?: FilterSql): Promise<IdScore[]> {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be an integer >= 0: ${limit}`);
    const plan = resolve(query);
    if (plan.none || limit === 0) return [];
    const active = filter?.active ? filter : undefined;
    return this.#read(plan, async (db, shared) => {
      const { rows } = await db.query<{ id: string; score: number }>(scoreSql(this.#s, table, plan.all, active?.sql), [
        ...(await shared([TABLE_ID[table]])),
        limit,
        ...(active?.params ?? []),
      ]);
      return rows.map((row) => ({ id: Number(row.id), score: row.score }));
    });
  }

  /**
   * SearchReader.elementHits: BM25 over names, signatures, descriptions and paths, plus
   * `codeWeight` times BM25 over code, summed by element, best first, filtered when a filter
   * (its parameters from $14) is given.
   */
  async elementHits(
    match: LexicalQuery | undefined,
    codeMatch: LexicalQuery | undefined,
    limit: number,
    codeWeight = CODE_WEIGHT,
    filter?: FilterSql,
  ): Promise<IdScore[]> {
    // At once where the pool has two connections free (a client takes them in turn).
    const [names, code] = await Promise.all([
      match ? this.bm25('names', match, limit, filter) : [],
      codeMatch ? this.bm25('code', codeMatch, limit, filter) : [],
    ]);
    return sumById([names, code.map(({ id, score }) => ({ id, score: codeWeight * score }))]);
  }

  /** In how many elements a term (as indexed: not tokenized again) occurs in names, per FTS5's counts; undefined when none. */
  async documentFrequency(term: string): Promise<number | undefined> {
    const { rows } = await this.#db.query<{ n: string }>(documentFrequencySql(this.#s), [
      this.#repos,
      [TABLE_ID.names],
      termKey(term),
    ]);
    const n = Number(rows[0]!.n);
    return n > 0 ? n : undefined;
  }

  /** The same for many terms in one read (a term in no element is absent). */
  async documentFrequencies(terms: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (terms.length === 0) return out;
    const keys = terms.map(termKey);
    const { rows } = await this.#db.query<{ term: string; n: number }>(documentFrequenciesSql(this.#s), [
      this.#repos,
      [TABLE_ID.names],
      [...new Set(keys)],
    ]);
    const byKey = new Map(rows.map((row) => [row.term, Number(row.n)]));
    terms.forEach((term, i) => {
      const n = byKey.get(keys[i]!);
      if (n) out.set(term, n);
    });
    return out;
  }

  /** Whether more than `count` elements match, in names (or in code). */
  async matchesMoreThan(query: LexicalQuery, count: number, inCode = false): Promise<boolean> {
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be an integer >= 0: ${count}`);
    return (await this.#count(inCode ? 'code' : 'names', query, count + 1)) > count;
  }

  /** How many elements match in names. */
  async matchCount(query: LexicalQuery): Promise<number> {
    return this.#count('names', query, null);
  }

  /**
   * For BM25 over whole files: per query, file id -> how many of the file's elements match it in
   * names or in code (SearchReader.fileTermCounts' perTerm).
   */
  async fileTermCounts(queries: readonly LexicalQuery[]): Promise<Map<number, number>[]> {
    const out: Map<number, number>[] = [];
    for (const query of queries) {
      const plan = resolve(query);
      if (plan.none) {
        out.push(new Map());
        continue;
      }
      const tabs = [TABLE_ID.names, TABLE_ID.code];
      const rows = await this.#read(plan, async (db, shared) => {
        const sql = fileCountSql(this.#s, plan.all);
        return (await db.query<{ file_id: string; n: number }>(sql, await shared(tabs))).rows;
      });
      out.push(new Map(rows.map((row) => [Number(row.file_id), row.n])));
    }
    return out;
  }

  async #count(table: LexicalTable, query: LexicalQuery, limit: number | null): Promise<number> {
    const plan = resolve(query);
    if (plan.none) return 0;
    const tab = TABLE_ID[table];
    // One term: the statistics already know.
    if (plan.slots === 1 && plan.singles[0] !== null) {
      const { rows } = await this.#db.query<{ n: string }>(documentFrequencySql(this.#s), [
        this.#repos,
        [tab],
        plan.singles[0],
      ]);
      return Number(rows[0]!.n);
    }
    return this.#read(plan, async (db, shared) => {
      const sql = countSql(this.#s, plan.all);
      return (await db.query<{ n: number }>(sql, [...(await shared([tab])), limit])).rows[0]!.n;
    });
  }

  /**
   * Runs a plan's statements: `shared(tabs)` gives the parameters $1 to $12 (finding the
   * phrases' matches first). With phrases and a pool, on one client in one read-only snapshot.
   */
  async #read<T>(
    plan: Plan,
    work: (db: Queryable, shared: (tabs: number[]) => Promise<unknown[]>) => Promise<T>,
  ): Promise<T> {
    const shared = (db: Queryable) => async (tabs: number[]) => [
      this.#repos,
      plan.singles,
      tabs,
      ...(await this.#phraseRows(db, plan, tabs)),
    ];
    if (plan.phrases.length === 0 || !(this.#db instanceof pg.Pool)) return work(this.#db, shared(this.#db));
    return inTransaction(
      this.#db,
      (client) => work(client, shared(client)),
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  /** The phrases' matches as the nine parallel arrays $4 to $12: slot, tab, repo, element, tf per column, length. */
  async #phraseRows(db: Queryable, plan: Plan, tabs: number[]): Promise<unknown[][]> {
    const columns: number[][] = Array.from({ length: 5 + TF_COLUMNS }, () => []);
    for (const { slot, tokens } of plan.phrases) {
      const { rows } = await db.query<{
        tab: number;
        repo_id: number;
        element_id: string;
        sizes: number[];
        texts: string[];
      }>(phraseCandidatesSql(this.#s), [this.#repos, tabs, [...new Set(tokens)]]);
      for (const row of rows) {
        const tf = phraseCounts(row.texts, tokens);
        if (tf.every((n) => n === 0)) continue;
        const values = [slot, row.tab, row.repo_id, Number(row.element_id), ...tf, sum(row.sizes)];
        values.forEach((value, i) => columns[i]!.push(value));
      }
    }
    return columns;
  }
}

/** A query's slots: each term's tokens. */
function resolve(query: LexicalQuery): Plan {
  const all = query.all ?? false;
  const tokens = query.terms.map(queryTokens);
  const phrases = tokens.flatMap((t, i) => (t.length > 1 ? [{ slot: i + 1, tokens: t }] : []));
  const none = tokens.length === 0 || tokens.every((t) => t.length === 0) || (all && tokens.some((t) => !t.length));
  return { none, slots: tokens.length, all, singles: tokens.map((t) => (t.length === 1 ? t[0]! : null)), phrases };
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
