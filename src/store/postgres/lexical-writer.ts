/**
 * Writes and removes elements' lexical rows in the Postgres store, keeping each repository's
 * statistics exact (schema.ts says what each table holds): what FTS5 would index for the same
 * texts (lexical-terms.ts), so that lexical-reader.ts scores as the embedded store does.
 *
 * Every call runs inside the caller's transaction, on the caller's client, and is one statement
 * or two, whatever the number of elements: a batch of a file's elements costs one round trip.
 * Writers of one repository must take turns (the store's per-repository lock): its statistics
 * rows are shared by all of its elements.
 */
import { COLUMN_WEIGHTS, indexRow, storedText, TABLE_ID, TF_COLUMNS, type LexicalTable } from './lexical-terms.js';
import { integerArray, textArray } from './array-literal.js';
import { quoteSchema } from './schema.js';
import type { Queryable as Client } from './serial.js';
import { runStatement, type Statement } from './statement.js';

/** The words of one element, as the embedded store gives FTS5 (../embedded/index-store.ts: lexicalText of each part). */
export interface LexicalTexts {
  name: string;
  signature: string;
  description: string;
  path: string;
  /** The element's own code; an element without (undefined or empty) has no row in the code table, as in FTS5. */
  code?: string | undefined;
}

export interface LexicalElement {
  /** The element's id (a row of `elements` in the same repository). */
  id: number;
  /** Its file's id: the postings are packed by file. */
  fileId: number;
  texts: LexicalTexts;
}

/** A row of lexical_postings being gathered: one file's elements holding one term of one table. */
interface Posting {
  tab: number;
  term: string;
  fileId: number;
  /** Where their entries are in Batch.entries. */
  entries: number[];
}

/** The columns of one INSERT, as parallel arrays (one parameter each, whatever the batch's size). */
interface Batch {
  rows: { tab: number[]; element: number[]; sizes: string[]; texts: string[] };
  /** Per table and file (the key fileId * 2 + tab), each term's posting. */
  postings: Map<number, Map<string, Posting>>;
  /** Each element and term: the element, the term's count per column (0 in those code lacks), its length. */
  entries: { element: number[]; tf: number[][]; length: number[] };
  /** Per table: term -> elements holding it. */
  docs: Map<string, number>[];
  /** Per table: rows and tokens per column added. */
  totals: { rows: number; tokens: number[] }[];
}

export class LexicalWriter {
  readonly #sql: { add: string; stats: string; remove: string; totals: string; prune: string; drop: string[] };

  /** A writer of the schema `schema` (migrated: schema.ts). */
  constructor(schema: string) {
    const s = quoteSchema(schema);
    const addArrays = (a: string, b: string) =>
      `ARRAY(SELECT x + y FROM unnest(${a}, ${b}) WITH ORDINALITY AS u(x, y, i) ORDER BY i)`;
    this.#sql = {
      add: `
        WITH new_rows AS (
          INSERT INTO ${s}.lexical_rows (repo_id, tab, element_id, sizes, texts)
          SELECT $1, r.tab, r.element_id, r.sizes::integer[], r.texts::text[]
          FROM unnest($2::smallint[], $3::bigint[], $4::text[], $5::text[]) AS r(tab, element_id, sizes, texts)
        ), files_with_rows AS MATERIALIZED (
          SELECT DISTINCT file_id FROM ${s}.lexical_postings WHERE repo_id = $1 AND file_id = ANY($8::bigint[])
        ), new_postings AS (
          -- A row's arrays are slices of the batch's flat arrays ($11 to $16, from $9 to $10): one
          -- literal each to parse, not one per row. A file without rows yet takes plain inserts.
          INSERT INTO ${s}.lexical_postings (${POSTING_COLUMNS})
          ${postingRows('t.file_id NOT IN (SELECT file_id FROM files_with_rows)')}
        )
        -- A changed file's kept elements have rows already: the new ones are appended to them.
        -- (Only here: an insert that may conflict costs about half as much again.)
        INSERT INTO ${s}.lexical_postings AS p (${POSTING_COLUMNS})
        ${postingRows('t.file_id IN (SELECT file_id FROM files_with_rows)')}
        ON CONFLICT (repo_id, tab, term, file_id) DO UPDATE SET
          element_ids = p.element_ids || excluded.element_ids, tf_0 = p.tf_0 || excluded.tf_0,
          tf_1 = p.tf_1 || excluded.tf_1, tf_2 = p.tf_2 || excluded.tf_2, tf_3 = p.tf_3 || excluded.tf_3,
          lengths = p.lengths || excluded.lengths`,
      stats: `
        WITH new_docs AS (
          INSERT INTO ${s}.lexical_term_stats AS st (repo_id, tab, term, docs)
          SELECT $1, d.tab, d.term, d.docs FROM unnest($2::smallint[], $3::text[], $4::integer[]) AS d(tab, term, docs)
          ON CONFLICT (repo_id, tab, term) DO UPDATE SET docs = st.docs + excluded.docs
        )
        INSERT INTO ${s}.lexical_totals AS t (repo_id, tab, inserted_rows, inserted_tokens, live_rows, live_tokens)
        SELECT $1, n.tab, n.rows, n.tokens::bigint[], n.rows, n.tokens::bigint[]
        FROM unnest($5::smallint[], $6::bigint[], $7::text[]) AS n(tab, rows, tokens)
        ON CONFLICT (repo_id, tab) DO UPDATE SET
          inserted_rows = t.inserted_rows + excluded.inserted_rows,
          inserted_tokens = ${addArrays('t.inserted_tokens', 'excluded.inserted_tokens')},
          live_rows = t.live_rows + excluded.live_rows,
          live_tokens = ${addArrays('t.live_tokens', 'excluded.live_tokens')}`,
      // BM25 scores with the live totals (lexical-sql.ts), as FTS5 does since its rows leave by
      // 'delete' (embedded/lexical-tables.ts); the inserted ones are kept, no longer read. The removed elements are cut out of their files' rows (a row left empty goes), and each
      // term's count of elements falls by as many as were cut from it.
      remove: `
        WITH gone_files AS (
          SELECT DISTINCT file_id FROM ${s}.elements WHERE repo_id = $1 AND id = ANY($2::bigint[])
        ), cut AS (
          SELECT p.tab, p.term, p.file_id,
            count(*) FILTER (WHERE u.element_id = ANY($2::bigint[]))::integer AS removed,
            ${kept('u.element_id')} AS element_ids, ${kept('u.tf_0')} AS tf_0,
            ${kept('u.tf_1', true)} AS tf_1, ${kept('u.tf_2', true)} AS tf_2, ${kept('u.tf_3', true)} AS tf_3,
            ${kept('u.length')} AS lengths
          FROM ${s}.lexical_postings p
          CROSS JOIN LATERAL unnest(p.element_ids, p.tf_0, p.tf_1, p.tf_2, p.tf_3, p.lengths)
            WITH ORDINALITY AS u(element_id, tf_0, tf_1, tf_2, tf_3, length, i)
          WHERE p.repo_id = $1 AND p.file_id IN (SELECT file_id FROM gone_files) AND p.element_ids && $2::bigint[]
          GROUP BY p.tab, p.term, p.file_id
        ), cut_rows AS (
          UPDATE ${s}.lexical_postings p SET element_ids = c.element_ids, tf_0 = c.tf_0, tf_1 = c.tf_1,
            tf_2 = c.tf_2, tf_3 = c.tf_3, lengths = c.lengths
          FROM cut c
          WHERE p.repo_id = $1 AND p.tab = c.tab AND p.term = c.term AND p.file_id = c.file_id
            AND cardinality(c.element_ids) > 0
        ), emptied_rows AS (
          DELETE FROM ${s}.lexical_postings p USING cut c
          WHERE p.repo_id = $1 AND p.tab = c.tab AND p.term = c.term AND p.file_id = c.file_id
            AND cardinality(c.element_ids) = 0
        ), counts AS (
          SELECT tab, term, sum(removed)::integer AS n FROM cut GROUP BY tab, term
        ), docs AS (
          UPDATE ${s}.lexical_term_stats st SET docs = st.docs - c.n FROM counts c
          WHERE st.repo_id = $1 AND st.tab = c.tab AND st.term = c.term RETURNING st.tab, st.term, st.docs
        ), gone_rows AS (
          DELETE FROM ${s}.lexical_rows WHERE repo_id = $1 AND element_id = ANY($2::bigint[]) RETURNING tab, sizes
        )
        SELECT 'row' AS kind, tab, NULL AS term, sizes FROM gone_rows
        UNION ALL SELECT 'unused', tab, term, NULL FROM docs WHERE docs = 0`,
      totals: `
        UPDATE ${s}.lexical_totals t SET live_rows = t.live_rows - n.rows,
          live_tokens = ARRAY(SELECT x - y FROM unnest(t.live_tokens, n.tokens::bigint[]) WITH ORDINALITY AS u(x, y, i) ORDER BY i)
        FROM unnest($2::smallint[], $3::bigint[], $4::text[]) AS n(tab, rows, tokens)
        WHERE t.repo_id = $1 AND t.tab = n.tab`,
      prune: `
        DELETE FROM ${s}.lexical_term_stats st USING unnest($2::smallint[], $3::text[]) AS u(tab, term)
        WHERE st.repo_id = $1 AND st.tab = u.tab AND st.term = u.term AND st.docs = 0`,
      drop: ['lexical_postings', 'lexical_term_stats', 'lexical_rows', 'lexical_totals'].map(
        (table) => `DELETE FROM ${s}.${table} WHERE repo_id = $1`,
      ),
    };
  }

  /** Indexes elements of a repository (none of them indexed yet: a second add of one is refused by its key). */
  async add(client: Client, repoId: number, elements: readonly LexicalElement[]): Promise<void> {
    const batch = new LexicalBatch();
    batch.add(elements);
    const rows = this.rowsStatement(repoId, batch);
    if (!rows) return;
    await runStatement(client, rows);
    const stats = new LexicalStats();
    stats.add(batch);
    await runStatement(client, this.statsStatement(repoId, stats)!);
  }

  /**
   * The rows and postings of the elements gathered in `gathered`, built now to run later;
   * undefined when it holds none. Their statistics go apart (statsStatement), gathered over
   * many batches: each statement that adds to a term's count leaves a version of its row behind
   * until the next vacuum, and searches read those rows.
   */
  rowsStatement(repoId: number, gathered: LexicalBatch): Statement | undefined {
    const { rows, postings: byFile, entries } = gathered.batch;
    if (rows.element.length === 0) return undefined;
    const postings = [...byFile.values()].flatMap((byTerm) => [...byTerm.values()]);
    const flat = flatPostings(postings, entries);
    // The long columns as array literals (array-literal.ts).
    return {
      text: this.#sql.add,
      values: [
        repoId,
        integerArray(rows.tab),
        integerArray(rows.element),
        rows.sizes,
        rows.texts,
        integerArray(postings.map((p) => p.tab)),
        textArray(postings.map((p) => p.term)),
        integerArray(postings.map((p) => p.fileId)),
        integerArray(flat.first),
        integerArray(flat.last),
        integerArray(flat.element),
        ...flat.tf.map(integerArray),
        integerArray(flat.length),
      ],
    };
  }

  /** What the statistics gathered add to the repository's, taken from `stats`; undefined when there is nothing. */
  statsStatement(repoId: number, stats: LexicalStats): Statement | undefined {
    const { docs, totals } = stats.take();
    if (totals.length === 0) return undefined;
    return {
      text: this.#sql.stats,
      values: [
        repoId,
        integerArray(docs.map((d) => d.tab)),
        textArray(docs.map((d) => d.term)),
        integerArray(docs.map((d) => d.n)),
        totals.map((t) => t.tab),
        totals.map((t) => t.rows),
        totals.map((t) => textArray(t.tokens)),
      ],
    };
  }

  /** Removes elements' rows (an id without rows is passed over). */
  async remove(client: Client, repoId: number, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const { rows } = await client.query<{ kind: string; tab: number; term: string | null; sizes: number[] | null }>(
      this.#sql.remove,
      [repoId, ids],
    );
    const gone = new Map<number, { rows: number; tokens: number[] }>();
    const unused: { tab: number; term: string }[] = [];
    for (const row of rows) {
      if (row.kind === 'unused') {
        unused.push({ tab: row.tab, term: row.term! });
        continue;
      }
      let total = gone.get(row.tab);
      if (!total) gone.set(row.tab, (total = { rows: 0, tokens: row.sizes!.map(() => 0) }));
      total.rows++;
      row.sizes!.forEach((size, i) => (total.tokens[i]! += size));
    }
    if (gone.size > 0) {
      const tabs = [...gone.keys()];
      await client.query(this.#sql.totals, [
        repoId,
        tabs,
        tabs.map((tab) => gone.get(tab)!.rows),
        tabs.map((tab) => textArray(gone.get(tab)!.tokens)),
      ]);
    }
    // A term no element holds any more leaves no row behind (as it leaves FTS5's vocabulary).
    if (unused.length > 0)
      await client.query(this.#sql.prune, [repoId, unused.map((u) => u.tab), unused.map((u) => u.term)]);
  }

  /** Removes every lexical row and statistic of a repository (as dropping its FTS5 tables does). */
  async dropRepository(client: Client, repoId: number): Promise<void> {
    for (const sql of this.#sql.drop) await client.query(sql, [repoId]);
  }
}

/**
 * Elements' words gathered for one statement (LexicalWriter.addStatement), added a few at a time
 * if the caller likes: a run tokenizes a batch's elements between its turns of the event loop.
 */
export class LexicalBatch {
  readonly batch: Batch = {
    rows: { tab: [], element: [], sizes: [], texts: [] },
    postings: new Map(),
    entries: { element: [], tf: Array.from({ length: TF_COLUMNS }, () => []), length: [] },
    docs: Object.values(TABLE_ID).map(() => new Map()),
    totals: emptyTotals(),
  };

  add(elements: readonly LexicalElement[]): void {
    for (const { id, fileId, texts } of elements) {
      addRow(this.batch, 'names', id, fileId, [texts.name, texts.signature, texts.description, texts.path]);
      if (texts.code) addRow(this.batch, 'code', id, fileId, [texts.code]);
    }
  }
}

/**
 * Elements' statistics gathered over batches, written once (LexicalWriter.statsStatement): per
 * table, how many elements hold each term, and the rows and tokens per column added.
 */
export class LexicalStats {
  #docs: Map<string, number>[] = Object.values(TABLE_ID).map(() => new Map());
  #totals: { rows: number; tokens: number[] }[] = emptyTotals();

  /** Terms gathered so far (what the statement will write a row of). */
  get terms(): number {
    return this.#docs.reduce((sum, terms) => sum + terms.size, 0);
  }

  add(gathered: LexicalBatch): void {
    const { docs, totals } = gathered.batch;
    docs.forEach((terms, tab) => {
      const into = this.#docs[tab]!;
      for (const [term, n] of terms) into.set(term, (into.get(term) ?? 0) + n);
    });
    totals.forEach((total, tab) => {
      const into = this.#totals[tab]!;
      into.rows += total.rows;
      total.tokens.forEach((n, i) => (into.tokens[i] = (into.tokens[i] ?? 0) + n));
    });
  }

  /** What was gathered, and nothing left. */
  take(): {
    docs: { tab: number; term: string; n: number }[];
    totals: { tab: number; rows: number; tokens: number[] }[];
  } {
    const docs = this.#docs.flatMap((terms, tab) => [...terms].map(([term, n]) => ({ tab, term, n })));
    const totals = this.#totals.flatMap((t, tab) => (t.rows > 0 ? [{ tab, ...t }] : []));
    this.#docs = this.#docs.map(() => new Map());
    this.#totals = emptyTotals();
    return { docs, totals };
  }
}

function emptyTotals(): { rows: number; tokens: number[] }[] {
  return Object.values(TABLE_ID).map(() => ({ rows: 0, tokens: [] }));
}

/** One element's row in one table, added to the batch. */
function addRow(batch: Batch, table: LexicalTable, id: number, fileId: number, texts: readonly string[]): void {
  if (texts.length !== COLUMN_WEIGHTS[table].length) throw new RangeError(`${table} takes ${texts.length} columns`);
  const tab = TABLE_ID[table];
  const stored = texts.map(storedText);
  const { sizes, terms } = indexRow(stored);
  const length = sizes.reduce((a, b) => a + b, 0);
  batch.rows.tab.push(tab);
  batch.rows.element.push(id);
  batch.rows.sizes.push(textArray(sizes));
  batch.rows.texts.push(textArray(stored));
  const fileKey = fileId * 2 + tab;
  let byTerm = batch.postings.get(fileKey);
  if (!byTerm) batch.postings.set(fileKey, (byTerm = new Map()));
  const { entries } = batch;
  const docs = batch.docs[tab]!;
  for (const [term, tf] of terms) {
    let posting = byTerm.get(term);
    if (!posting) byTerm.set(term, (posting = { tab, term, fileId, entries: [] }));
    posting.entries.push(entries.element.length);
    entries.element.push(id);
    for (let c = 0; c < TF_COLUMNS; c++) entries.tf[c]!.push(tf[c]!);
    entries.length.push(length);
    docs.set(term, (docs.get(term) ?? 0) + 1);
  }
  const totals = batch.totals[tab]!;
  totals.rows++;
  sizes.forEach((size, i) => (totals.tokens[i] = (totals.tokens[i] ?? 0) + size));
}

/**
 * The postings' entries end to end, each posting's together, and where each posting lies in
 * them (1-based, inclusive, as SQL slices).
 */
function flatPostings(
  postings: readonly Posting[],
  entries: Batch['entries'],
): { first: number[]; last: number[]; element: number[]; tf: number[][]; length: number[] } {
  const out = {
    first: [] as number[],
    last: [] as number[],
    element: [] as number[],
    tf: entries.tf.map(() => [] as number[]),
    length: [] as number[],
  };
  for (const posting of postings) {
    out.first.push(out.element.length + 1);
    for (const at of posting.entries) {
      out.element.push(entries.element[at]!);
      for (let c = 0; c < TF_COLUMNS; c++) out.tf[c]!.push(entries.tf[c]![at]!);
      out.length.push(entries.length[at]!);
    }
    out.last.push(out.element.length);
  }
  return out;
}

const POSTING_COLUMNS = 'repo_id, tab, term, file_id, element_ids, tf_0, tf_1, tf_2, tf_3, lengths';

/** The batch's postings ($6 to $16) that meet `condition`, as rows of lexical_postings. */
function postingRows(condition: string): string {
  const slice = (param: string, type: string) => `(${param}::${type}[])[t.first:t.last]`;
  // Code rows (one column) leave the other columns' counts empty.
  const namesOnly = (param: string) =>
    `CASE WHEN t.tab = ${TABLE_ID.names} THEN ${slice(param, 'integer')} ELSE '{}' END`;
  return `SELECT $1, t.tab, t.term, t.file_id, ${slice('$11', 'bigint')}, ${slice('$12', 'integer')},
            ${namesOnly('$13')}, ${namesOnly('$14')}, ${namesOnly('$15')}, ${slice('$16', 'integer')}
          FROM unnest($6::smallint[], $7::text[], $8::bigint[], $9::integer[], $10::integer[])
            AS t(tab, term, file_id, first, last)
          WHERE ${condition}`;
}

/**
 * An array of a posting's values for the elements kept (ordered as they were), from its row
 * unnested as `u` with the removed ids in $2. `padded`: a column code rows leave empty (unnest
 * gives NULL there), which stays empty.
 */
function kept(value: string, padded = false): string {
  const keep = `u.element_id <> ALL($2::bigint[])${padded ? ` AND ${value} IS NOT NULL` : ''}`;
  return `coalesce(array_agg(${value} ORDER BY u.i) FILTER (WHERE ${keep}), '{}')`;
}
