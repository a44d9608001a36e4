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
  texts: LexicalTexts;
}

/** The columns of one INSERT, as parallel arrays (one parameter each, whatever the batch's size). */
interface Batch {
  rows: { tab: number[]; element: number[]; sizes: string[]; texts: string[] };
  terms: { tab: number[]; term: string[]; element: number[]; tf: number[][]; length: number[] };
  /** (tab, term) -> elements holding it. */
  docs: Map<string, number>;
  /** Per table: rows and tokens per column added. */
  totals: { rows: number; tokens: number[] }[];
}

export class LexicalWriter {
  readonly #sql: { add: string; remove: string; totals: string; prune: string; drop: string[] };

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
        ), new_terms AS (
          INSERT INTO ${s}.lexical_terms (repo_id, tab, term, element_id, tf_0, tf_1, tf_2, tf_3, length)
          SELECT $1, t.* FROM unnest($6::smallint[], $7::text[], $8::bigint[], $9::integer[], $10::integer[],
            $11::integer[], $12::integer[], $13::integer[]) AS t
        ), new_docs AS (
          INSERT INTO ${s}.lexical_term_stats AS st (repo_id, tab, term, docs)
          SELECT $1, d.tab, d.term, d.docs FROM unnest($14::smallint[], $15::text[], $16::integer[]) AS d(tab, term, docs)
          ON CONFLICT (repo_id, tab, term) DO UPDATE SET docs = st.docs + excluded.docs
        )
        INSERT INTO ${s}.lexical_totals AS t (repo_id, tab, inserted_rows, inserted_tokens, live_rows, live_tokens)
        SELECT $1, n.tab, n.rows, n.tokens::bigint[], n.rows, n.tokens::bigint[]
        FROM unnest($17::smallint[], $18::bigint[], $19::text[]) AS n(tab, rows, tokens)
        ON CONFLICT (repo_id, tab) DO UPDATE SET
          inserted_rows = t.inserted_rows + excluded.inserted_rows,
          inserted_tokens = ${addArrays('t.inserted_tokens', 'excluded.inserted_tokens')},
          live_rows = t.live_rows + excluded.live_rows,
          live_tokens = ${addArrays('t.live_tokens', 'excluded.live_tokens')}`,
      // FTS5's totals stay as they are: a contentless_delete table keeps counting a deleted row.
      remove: `
        WITH gone_terms AS (
          DELETE FROM ${s}.lexical_terms WHERE repo_id = $1 AND element_id = ANY($2::bigint[]) RETURNING tab, term
        ), counts AS (
          SELECT tab, term, count(*)::integer AS n FROM gone_terms GROUP BY tab, term
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
      drop: ['lexical_terms', 'lexical_term_stats', 'lexical_rows', 'lexical_totals'].map(
        (table) => `DELETE FROM ${s}.${table} WHERE repo_id = $1`,
      ),
    };
  }

  /** Indexes elements of a repository (none of them indexed yet: a second add of one is refused by its key). */
  async add(client: Client, repoId: number, elements: readonly LexicalElement[]): Promise<void> {
    if (elements.length === 0) return;
    const batch = emptyBatch();
    for (const { id, texts } of elements) {
      addRow(batch, 'names', id, [texts.name, texts.signature, texts.description, texts.path]);
      if (texts.code) addRow(batch, 'code', id, [texts.code]);
    }
    const docs = [...batch.docs].map(([key, n]) => ({ tab: Number(key[0]), term: key.slice(2), n }));
    const totals = batch.totals.flatMap((t, tab) => (t.rows > 0 ? [{ tab, ...t }] : []));
    const { rows, terms } = batch;
    // The long columns as array literals (array-literal.ts).
    await client.query(this.#sql.add, [
      repoId,
      integerArray(rows.tab),
      integerArray(rows.element),
      rows.sizes,
      rows.texts,
      integerArray(terms.tab),
      textArray(terms.term),
      integerArray(terms.element),
      ...terms.tf.map(integerArray),
      integerArray(terms.length),
      integerArray(docs.map((d) => d.tab)),
      textArray(docs.map((d) => d.term)),
      integerArray(docs.map((d) => d.n)),
      totals.map((t) => t.tab),
      totals.map((t) => t.rows),
      totals.map((t) => textArray(t.tokens)),
    ]);
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

function emptyBatch(): Batch {
  return {
    rows: { tab: [], element: [], sizes: [], texts: [] },
    terms: { tab: [], term: [], element: [], tf: Array.from({ length: TF_COLUMNS }, () => []), length: [] },
    docs: new Map(),
    totals: Object.values(TABLE_ID).map(() => ({ rows: 0, tokens: [] })),
  };
}

/** One element's row in one table, added to the batch. */
function addRow(batch: Batch, table: LexicalTable, id: number, texts: readonly string[]): void {
  if (texts.length !== COLUMN_WEIGHTS[table].length) throw new RangeError(`${table} takes ${texts.length} columns`);
  const tab = TABLE_ID[table];
  const stored = texts.map(storedText);
  const { sizes, terms } = indexRow(stored);
  const length = sizes.reduce((a, b) => a + b, 0);
  batch.rows.tab.push(tab);
  batch.rows.element.push(id);
  batch.rows.sizes.push(textArray(sizes));
  batch.rows.texts.push(textArray(stored));
  for (const [term, tf] of terms) {
    batch.terms.tab.push(tab);
    batch.terms.term.push(term);
    batch.terms.element.push(id);
    tf.forEach((n, i) => batch.terms.tf[i]!.push(n));
    batch.terms.length.push(length);
    const key = `${tab}:${term}`;
    batch.docs.set(key, (batch.docs.get(key) ?? 0) + 1);
  }
  const totals = batch.totals[tab]!;
  totals.rows++;
  sizes.forEach((size, i) => (totals.tokens[i] = (totals.tokens[i] ?? 0) + size));
}
