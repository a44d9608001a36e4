import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/analysis/analyzer.js';
import { ftsExpression, parseQuery } from '../../src/search/query.js';
import { lexicalTables } from '../../src/store/embedded/lexical-tables.js';
import { type IdScore, LexicalReader, type LexicalQuery } from '../../src/store/postgres/lexical-reader.js';
import { type LexicalElement, type LexicalTexts, LexicalWriter } from '../../src/store/postgres/lexical-writer.js';
import {
  migratePostgres,
  POSTGRES_SCHEMA_VERSION,
  postgresSchemaVersion,
  quoteSchema,
} from '../../src/store/postgres/schema.js';
import { SearchReader } from '../../src/store/embedded/search-reader.js';
import { prepared } from '../../src/store/embedded/sqlite.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { lexicalText } from '../../src/text/terms.js';
import { buildDocuments, type ElementDocument, qualifiedName } from '../../src/vector/document.js';
import { insertElements, insertRepositories, type Postgres, schemaAt, startPostgres } from '../support/postgres.js';

// The Postgres store's lexical half against the embedded store's FTS5, on the same documents:
// this repository's src/ indexed by the real IndexStore (its FTS5 tables, its vector ids), and the
// same elements, with the texts IndexStore.writeFile gives FTS5, written to PostgreSQL (PGlite).

const SCHEMA = 'lexical_test';
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
/** Scores agree to this (relative); the order of ids exactly. */
const TOLERANCE = 1e-9;
/** SearchReader's filters, none active. */
const NO_FILTERS = { sql: '1', params: [], active: false };

/** Single words, several words, identifiers, common words, words absent, inflections, a phrase. */
const QUERIES = [
  'search',
  'index',
  'vector',
  'the',
  'a',
  'function',
  'return',
  'const',
  'import',
  'export',
  'error',
  'store',
  'repository',
  'getUserById',
  'SearchReader',
  'elementHits',
  'ftsExpression',
  'lexicalText',
  'bm25',
  'FAISS',
  'sqlite',
  'postgres',
  'migrate schema version',
  'write the index file atomically',
  'how are sessions validated',
  'parse query terms',
  'tree-sitter parser language',
  'embedding vector dimension',
  'open database read only',
  'MCP server tokens over http',
  'json',
  'path',
  'file files',
  'indexing indexes indexer',
  'term weight document frequency',
  'NO_INDEX',
  'noIndex',
  'Index.search',
  'parse_config',
  'xyzzyplugh',
  'zzqqxx wwvvkk',
  'ocvector',
  'BM25 ranking',
  'snippet cut lines',
  'occurrences lines',
  'abort signal',
  'generation tombstone',
  'GPU cuda device',
  'ollama model',
  'stop words',
  'user users',
  'running runs ran',
  'café résumé',
  'searchᦰReader',
  'indexᦰStore search',
  'RepositoryName isRepositoryName',
  'src/store/store.ts',
  'throw new StoreError',
  'async await promise',
  'Map Set Array',
  'UTF-8 bytes surrogate',
  'x',
  '42',
  'k1 b avgdl',
];

interface Written {
  fileId: number;
  elements: (LexicalElement & { fileId: number })[];
}

let postgres: Postgres;
let pool: pg.Pool;
let dir: string;
let store: IndexStore;
let rootA: number;
let rootB: number;
const writer = new LexicalWriter(SCHEMA);
const s = quoteSchema(SCHEMA);

/** The texts IndexStore.writeFile gives FTS5 for an element (store.ts). */
function lexicalTexts(document: ElementDocument, path: string): LexicalTexts {
  const e = document.element;
  return {
    name: lexicalText(qualifiedName(e)),
    signature: lexicalText(e.signature),
    description: lexicalText(e.description),
    path: lexicalText(path),
    code: document.code ? lexicalText(document.code) : undefined,
  };
}

/**
 * Writes a file into the embedded store, and what changed into Postgres, each in one transaction.
 * Written before (`before`), the file keeps the elements whose document is unchanged, and the
 * others are removed and added, as a run writes a changed file (Postgres cuts and merges its
 * packed rows).
 */
async function writeFile(
  rootId: number,
  path: string,
  text: string,
  before?: Written,
): Promise<Written & { kept: number; removed: number }> {
  const documents = buildDocuments(analyzeText(path, text), text.split('\n'));
  const update = { path, language: 'typescript', size: text.length, mtimeMs: 1, hash: 'h', status: 'indexed' as const };
  const { fileId, added, removed, kept } = store.transaction(() =>
    store.writeFile(rootId, { ...update, error: null }, documents, store.generation),
  );
  const elements = added.map(({ vectorId, document }) => ({
    id: vectorId,
    fileId,
    texts: lexicalTexts(document, path),
  }));
  await inTransaction(async (client) => {
    if (removed.length > 0) {
      await writer.remove(client, rootId, removed);
      await client.query(`DELETE FROM ${s}.elements WHERE repo_id = $1 AND id = ANY($2::bigint[])`, [rootId, removed]);
    }
    await insertElements(
      client,
      s,
      rootId,
      elements.map((e) => e.id),
      fileId,
    );
    await writer.add(client, rootId, elements);
  });
  const gone = new Set(removed);
  const keptElements = before?.elements.filter((e) => !gone.has(e.id)) ?? [];
  return { fileId, elements: [...keptElements, ...elements], kept, removed: removed.length };
}

/** Deletes a file from both stores. */
async function deleteFile(rootId: number, written: Written): Promise<void> {
  store.transaction(() => store.deleteFile(written.fileId, store.generation));
  const ids = written.elements.map((e) => e.id);
  await inTransaction(async (client) => {
    await writer.remove(client, rootId, ids);
    await client.query(`DELETE FROM ${s}.elements WHERE repo_id = $1 AND id = ANY($2::bigint[])`, [rootId, ids]);
  });
}

async function inTransaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

function sourceFiles(under = ''): { path: string; text: string }[] {
  return (readdirSync(join(SRC, under), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => {
      const path = join('src', under, name).split('\\').join('/');
      return { path, text: readFileSync(join(SRC, under, name), 'utf8') };
    });
}

/** One table of one root, ranked by FTS5 exactly as SearchReader's statements rank it. */
function fts(rootId: number, table: 'names' | 'code', expression: string, limit: number): IdScore[] {
  const { elements, code } = lexicalTables(rootId);
  const t = table === 'names' ? elements : code;
  const rank = table === 'names' ? `bm25(${t}, 4.0, 2.0, 1.0, 0.5)` : `bm25(${t})`;
  return prepared<[string, number], { id: number; rank: number }>(
    store.database,
    `SELECT rowid AS id, ${rank} AS rank FROM ${t} WHERE ${t} MATCH ? ORDER BY rank LIMIT ?`,
  )
    .all(expression, limit)
    .map((row) => ({ id: row.id, score: -row.rank }));
}

function expectSame(actual: readonly IdScore[], expected: readonly IdScore[], label: string): void {
  expect(
    actual.map((hit) => hit.id),
    label,
  ).toEqual(expected.map((hit) => hit.id));
  actual.forEach((hit, i) => {
    const want = expected[i]!.score;
    expect(Math.abs(hit.score - want) / Math.max(Math.abs(want), 1e-300), `${label} #${i}`).toBeLessThanOrEqual(
      TOLERANCE,
    );
  });
}

/** The query forms a search makes: each query's terms OR-ed and AND-ed, and its whole identifiers. */
function forms(): { label: string; terms: string[]; all: boolean }[] {
  return QUERIES.flatMap((q) => {
    const parsed = parseQuery(q);
    const out = [{ label: `${q} (or)`, terms: parsed.terms, all: false }];
    if (parsed.terms.length > 1) out.push({ label: `${q} (and)`, terms: parsed.terms, all: true });
    if (parsed.wholeTerms.length > 0) out.push({ label: `${q} (whole)`, terms: parsed.wholeTerms, all: false });
    return out.filter((form) => form.terms.length > 0);
  });
}

function expression(terms: readonly string[], all: boolean): string {
  return all ? terms.map((term) => ftsExpression([term])).join(' AND ') : ftsExpression(terms)!;
}

/** Both tables of one root, every query form, at two limits. */
async function expectParity(rootId: number, limits = [10, 200]): Promise<number> {
  const reader = new LexicalReader(pool, SCHEMA, [rootId]);
  let compared = 0;
  for (const { label, terms, all } of forms())
    for (const table of ['names', 'code'] as const)
      for (const limit of limits) {
        const expected = fts(rootId, table, expression(terms, all), limit);
        expectSame(await reader.bm25(table, { terms, all }, limit), expected, `${table} ${label} limit ${limit}`);
        compared += expected.length;
      }
  return compared;
}

/** FTS5's averages record (`%_data` id 1): rows, then tokens per column, as varints. */
function ftsTotals(table: string): number[] {
  const block = prepared<[], { block: Buffer }>(store.database, `SELECT block FROM ${table}_data WHERE id = 1`).get()!
    .block;
  const out: number[] = [];
  for (let i = 0; i < block.length; ) {
    let value = 0;
    let byte: number;
    do value = value * 128 + ((byte = block[i++]!) & 0x7f);
    while (byte & 0x80);
    out.push(value);
  }
  return out;
}

async function pgTotals(rootId: number, tab: number): Promise<number[]> {
  const { rows } = await pool.query<{ rows: string; tokens: string[] }>(
    `SELECT live_rows AS rows, live_tokens AS tokens FROM ${s}.lexical_totals WHERE repo_id = $1 AND tab = $2`,
    [rootId, tab],
  );
  return [Number(rows[0]!.rows), ...rows[0]!.tokens.map(Number)];
}

/** The statistics recomputed from the rows they summarise: nothing differs. */
async function expectExactStatistics(): Promise<void> {
  const docs = await pool.query(`
    SELECT coalesce(st.repo_id, t.repo_id) AS repo_id, coalesce(st.term, t.term) AS term, st.docs, t.n
    FROM ${s}.lexical_term_stats st
    FULL JOIN (SELECT repo_id, tab, term, sum(cardinality(element_ids))::integer AS n
               FROM ${s}.lexical_postings GROUP BY 1, 2, 3) t
      ON t.repo_id = st.repo_id AND t.tab = st.tab AND t.term = st.term
    WHERE st.docs IS DISTINCT FROM t.n`);
  expect(docs.rows).toEqual([]);
  const live = await pool.query(`
    SELECT t.repo_id, t.tab FROM ${s}.lexical_totals t
    LEFT JOIN (SELECT repo_id, tab, count(*) AS n, sum((SELECT sum(x) FROM unnest(sizes) x)) AS tokens
               FROM ${s}.lexical_rows GROUP BY 1, 2) r ON r.repo_id = t.repo_id AND r.tab = t.tab
    WHERE t.live_rows <> coalesce(r.n, 0) OR (SELECT sum(x) FROM unnest(t.live_tokens) x) <> coalesce(r.tokens, 0)`);
  expect(live.rows).toEqual([]);
}

const files = new Map<string, Written>();

beforeAll(async () => {
  postgres = await startPostgres({ maxConnections: 4 });
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  await migratePostgres(pool, SCHEMA);
  dir = mkdtempSync(join(tmpdir(), 'ocvector-pg-lexical-'));
  store = IndexStore.open(dir);
  rootA = store.rootId('/repos/a');
  rootB = store.rootId('/repos/b');
  await insertRepositories(pool, s, [
    { id: rootA, name: 'a' },
    { id: rootB, name: 'b' },
  ]);
  for (const { path, text } of sourceFiles()) files.set(path, await writeFile(rootA, path, text));
  // A token past what a B-tree entry holds, and one FTS5 stems.
  const long = 'q'.repeat(3000);
  files.set(
    'long.ts',
    await writeFile(rootA, 'long.ts', `export const long = '${long}';\nexport const rains = 'raining';\n`),
  );
  for (const { path, text } of sourceFiles('store')) await writeFile(rootB, path, text);
});

afterAll(async () => {
  await pool?.end();
  await postgres?.stop();
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the PostgreSQL schema', () => {
  it('migrates once: a second run changes nothing, and a newer schema is refused', async () => {
    expect(await migratePostgres(pool, SCHEMA)).toEqual({ from: POSTGRES_SCHEMA_VERSION, to: POSTGRES_SCHEMA_VERSION });
    const { rows } = await pool.query(`SELECT version FROM ${s}.schema_version ORDER BY version`);
    expect(rows.map((row) => row.version)).toEqual([...Array(POSTGRES_SCHEMA_VERSION).keys()].map((v) => v + 1));
    expect(await postgresSchemaVersion(pool, SCHEMA)).toBe(POSTGRES_SCHEMA_VERSION);
    expect(await postgresSchemaVersion(pool, 'never_made')).toBe(0);
    await migratePostgres(pool, 'Newer_one');
    await pool.query(`INSERT INTO "Newer_one".schema_version (version) VALUES (${POSTGRES_SCHEMA_VERSION + 1})`);
    await expect(migratePostgres(pool, 'Newer_one')).rejects.toMatchObject({
      code: 'NEWER_SCHEMA',
      message: expect.stringMatching(/written by a newer ocvector/),
    });
  });

  it("checks a file's words against files no more (schema 5): a schema of version 4 loses the check", async () => {
    const old = await schemaAt(pool, 'at_four', 4);
    const foreignKeys = async (schema: string) =>
      (
        await pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = to_regclass($1) AND contype = 'f'",
          [`${schema}.occurrences`],
        )
      ).rows[0]!.n;
    expect(await foreignKeys(old)).toBe(1);
    expect(await migratePostgres(pool, 'at_four')).toEqual({ from: 4, to: POSTGRES_SCHEMA_VERSION });
    expect(await foreignKeys(old)).toBe(0);
    expect(await foreignKeys(s)).toBe(0);
  });

  it("packs an older store's term rows by file (schema 6): the same counts, read back the same", async () => {
    const old = await schemaAt(pool, 'at_five', 5);
    await insertRepositories(pool, old, [{ id: 7, name: 'seven' }]);
    await insertElements(pool, old, 7, [10, 11], 100);
    await insertElements(pool, old, 7, [12], 101);
    // (tab, term, element, tf_0 .. tf_3, length): `store` in three elements of two files, in both tables.
    const terms: [number, string, number, number, number, number, number, number][] = [
      [0, 'store', 11, 1, 0, 2, 1, 9],
      [0, 'store', 10, 2, 1, 0, 0, 7],
      [0, 'store', 12, 1, 0, 0, 3, 5],
      [1, 'store', 10, 4, 0, 0, 0, 30],
      [0, 'index', 12, 0, 1, 0, 0, 5],
    ];
    for (const row of terms)
      await pool.query(
        `INSERT INTO ${old}.lexical_terms (repo_id, tab, term, element_id, tf_0, tf_1, tf_2, tf_3, length)
         VALUES (7, $1, $2, $3, $4, $5, $6, $7, $8)`,
        row,
      );
    expect(await migratePostgres(pool, 'at_five')).toEqual({ from: 5, to: POSTGRES_SCHEMA_VERSION });
    const { rows } = await pool.query(
      `SELECT tab, term, file_id::integer, element_ids::integer[], tf_0, tf_1, tf_2, tf_3, lengths FROM ${old}.lexical_postings
       WHERE repo_id = 7 ORDER BY tab, term, file_id`,
    );
    expect(rows).toEqual([
      {
        tab: 0,
        term: 'index',
        file_id: 101,
        element_ids: [12],
        tf_0: [0],
        tf_1: [1],
        tf_2: [0],
        tf_3: [0],
        lengths: [5],
      },
      {
        tab: 0,
        term: 'store',
        file_id: 100,
        element_ids: [10, 11],
        tf_0: [2, 1],
        tf_1: [1, 0],
        tf_2: [0, 2],
        tf_3: [0, 1],
        lengths: [7, 9],
      },
      {
        tab: 0,
        term: 'store',
        file_id: 101,
        element_ids: [12],
        tf_0: [1],
        tf_1: [0],
        tf_2: [0],
        tf_3: [3],
        lengths: [5],
      },
      {
        tab: 1,
        term: 'store',
        file_id: 100,
        element_ids: [10],
        tf_0: [4],
        tf_1: [],
        tf_2: [],
        tf_3: [],
        lengths: [30],
      },
    ]);
    expect((await pool.query('SELECT to_regclass($1) AS t', [`${old}.lexical_terms`])).rows[0].t).toBeNull();
  });

  it('refuses a schema name that is not an identifier, before any SQL', async () => {
    for (const name of ['a b', 'x"; DROP SCHEMA public; --', '1abc', '', 'a'.repeat(64), 'ü'])
      await expect(migratePostgres(pool, name), name).rejects.toMatchObject({
        code: 'BAD_NAME',
        message: expect.stringMatching(/is not a schema name for the PostgreSQL store/),
      });
    // PostgreSQL's own schemas: no table of the store is made among the catalog's.
    for (const name of ['information_schema', 'INFORMATION_SCHEMA', 'pg_catalog', 'pg_toast', 'pg_temp_1', 'Pg_x'])
      await expect(migratePostgres(pool, name), name).rejects.toMatchObject({
        code: 'BAD_NAME',
        message: expect.stringMatching(/is one of PostgreSQL's own schemas/),
      });
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'schema_version' AND schemaname IN ('information_schema', 'pg_catalog')",
    );
    expect(rows[0].n).toBe(0);
    expect(() => new LexicalWriter('a-b')).toThrow(/not a schema name/);
    expect(() => new LexicalReader(pool, '"x"', [1])).toThrow(/not a schema name/);
  });
});

describe('BM25 in PostgreSQL against FTS5', () => {
  it('keeps FTS5 totals and exact counts', async () => {
    for (const [tab, table] of [lexicalTables(rootA).elements, lexicalTables(rootA).code].entries())
      expect(await pgTotals(rootA, tab)).toEqual(ftsTotals(table));
    await expectExactStatistics();
  });

  it('ranks both tables as FTS5 does, over 60 queries and their AND and whole-name forms', async () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(50);
    expect(await expectParity(rootA)).toBeGreaterThan(10_000);
  });

  it('answers the rest of a search as SearchReader does', async () => {
    const embedded = new SearchReader(store, [rootA]);
    const reader = new LexicalReader(pool, SCHEMA, [rootA]);
    for (const q of QUERIES) {
      const { terms, wholeTerms } = parseQuery(q);
      if (terms.length === 0) continue;
      const match: LexicalQuery = { terms };
      expectSame(
        await reader.elementHits(match, match, 100),
        embedded.elementHits(ftsExpression(terms), ftsExpression(terms), NO_FILTERS, 100),
        `hits ${q}`,
      );
      if (wholeTerms.length > 0) {
        const whole = ftsExpression(wholeTerms);
        expectSame(
          await reader.elementHits({ terms: wholeTerms }, { terms: wholeTerms }, 100, 1),
          embedded.elementHits(whole, whole, NO_FILTERS, 100, 1),
          `whole ${q}`,
        );
      }
      const one = terms.map((term) => ftsExpression([term])!);
      const expected = embedded.fileTermCounts(one, store.generation).perTerm;
      expect(await reader.fileTermCounts(terms.map((term) => ({ terms: [term] }))), `files ${q}`).toEqual(expected);
      for (const [i, term] of terms.entries()) {
        expect(await reader.matchCount({ terms: [term] }), `count ${term}`).toBe(embedded.matchCount(one[i]!));
        for (const threshold of [0, 5, 100])
          for (const inCode of [false, true])
            expect(await reader.matchesMoreThan({ terms: [term] }, threshold, inCode), `${term} > ${threshold}`).toBe(
              embedded.matchesMoreThan(one[i]!, threshold, inCode),
            );
      }
      const all = { terms, all: true };
      expect(await reader.matchesMoreThan(all, 0), `all ${q}`).toBe(
        embedded.matchesMoreThan(expression(terms, true), 0),
      );
      expect(await reader.matchCount(all), `all ${q}`).toBe(embedded.matchCount(expression(terms, true)));
    }
    for (const term of ['index', 'search', 'the', 'store', 'xyzzy', 'q'.repeat(3000), 'rain', 'raining'])
      expect(await reader.documentFrequency(term), term).toBe(embedded.documentFrequency(term));
  });

  it('reads quoted terms as FTS5 does: repeated, of several tokens (a phrase), of none, too long for a key', async () => {
    const reader = new LexicalReader(pool, SCHEMA, [rootA]);
    const cases: { terms: string[]; all?: boolean }[] = [
      { terms: ['user', 'users'] },
      { terms: ['index', 'search', 'indexes'] },
      { terms: ['searchᦰreader'] },
      { terms: ['searchᦰreader', 'store'] },
      { terms: ['searchᦰreader', 'lexical'], all: true },
      { terms: ['readerᦰsearch'] },
      { terms: ['indexᦰindexᦰstore'] },
      { terms: ['_', 'store'] },
      { terms: ['_', 'store'], all: true },
      { terms: ['ᦰ'] },
      { terms: ['q'.repeat(3000)] },
      { terms: ['raining', 'rains'] },
    ];
    for (const { terms, all = false } of cases)
      for (const table of ['names', 'code'] as const) {
        const expected = fts(rootA, table, expression(terms, all), 50);
        expectSame(await reader.bm25(table, { terms, all }, 50), expected, `${table} ${terms.join(' ')}`);
        const count = (await reader.bm25(table, { terms, all }, 100_000)).length;
        expect(await reader.matchesMoreThan({ terms, all }, 0, table === 'code')).toBe(count > 0);
      }
    // The phrase and the long token are found, not just equally missed.
    expect((await reader.bm25('names', { terms: ['searchᦰreader'] }, 5)).length).toBeGreaterThan(0);
    expect((await reader.bm25('code', { terms: ['q'.repeat(3000)] }, 5)).length).toBe(1);
    expect(await reader.bm25('names', { terms: [] }, 5)).toEqual([]);
  });

  it('stays equal through deletes and re-inserts (FTS5 keeps counting deleted rows in N and avgdl)', async () => {
    const changed = [...files.keys()].filter((_, i) => i % 3 === 0);
    for (const path of changed) await deleteFile(rootA, files.get(path)!);
    await expectExactStatistics();
    await expectParity(rootA, [50]);
    for (const path of changed.filter((_, i) => i % 2 === 0)) {
      const text = path === 'long.ts' ? 'export const back = 1;\n' : readFileSync(join(SRC, '..', path), 'utf8');
      files.set(path, await writeFile(rootA, path, text));
    }
    for (const [tab, table] of [lexicalTables(rootA).elements, lexicalTables(rootA).code].entries())
      expect(await pgTotals(rootA, tab)).toEqual(ftsTotals(table));
    await expectExactStatistics();
    expect(await expectParity(rootA, [50])).toBeGreaterThan(1000);
  });

  it('stays equal when a changed file keeps some of its elements: its packed rows are cut and merged', async () => {
    const path = 'src/changing.ts';
    const version = (n: number) =>
      [
        'export function storeIndex(store: IndexStore): number {\n  return store.rows.length;\n}',
        `export function searchIndex(query: string): string[] {\n  return [query, '${'v'.repeat(n)}'];\n}`,
        n === 1
          ? 'export function removedLater(index: number): number {\n  return index * 2;\n}'
          : 'export function addedLater(store: string, index: number): string {\n  return store + index;\n}',
        'export class KeptStore {\n  index(): number {\n    return 1;\n  }\n}',
      ].join('\n\n');
    let written = await writeFile(rootA, path, version(1));
    await expectExactStatistics();
    for (const n of [2, 3]) {
      const changed = await writeFile(rootA, path, version(n), written);
      expect({ fileId: changed.fileId, kept: changed.kept > 0, removed: changed.removed > 0 }).toEqual({
        fileId: written.fileId,
        kept: true,
        removed: true,
      });
      written = changed;
      files.set(path, written);
      await expectExactStatistics();
      expect(await expectParity(rootA, [50])).toBeGreaterThan(1000);
    }
    // Each element of the file in one row per term and table, and no row without elements.
    const { rows } = await pool.query<{ ids: string[] }>(
      `SELECT array_agg(DISTINCT e ORDER BY e)::text[] AS ids FROM ${s}.lexical_postings p, unnest(p.element_ids) e
       WHERE p.repo_id = $1 AND p.file_id = $2`,
      [rootA, written.fileId],
    );
    expect(rows[0]!.ids.map(Number)).toEqual(written.elements.map((e) => e.id).sort((a, b) => a - b));
    const empty = await pool.query(`SELECT 1 FROM ${s}.lexical_postings WHERE cardinality(element_ids) = 0`);
    expect(empty.rows).toEqual([]);
  });

  it('keeps two repositories apart: each scored by its own statistics, merged as SearchReader merges them', async () => {
    await expectParity(rootB, [50]);
    for (const [roots, label] of [
      [[rootB], 'b alone'],
      [[rootA, rootB], 'a and b'],
      [[rootB, rootA], 'b and a'],
    ] as const) {
      const embedded = new SearchReader(store, roots);
      const reader = new LexicalReader(pool, SCHEMA, roots);
      for (const q of QUERIES) {
        const { terms } = parseQuery(q);
        if (terms.length === 0) continue;
        const e = ftsExpression(terms);
        expectSame(
          await reader.elementHits({ terms }, { terms }, 100),
          embedded.elementHits(e, e, NO_FILTERS, 100),
          `${label} ${q}`,
        );
        expect(await reader.matchCount({ terms }), `${label} ${q}`).toBe(embedded.matchCount(e!));
      }
      expect(await reader.documentFrequency('index')).toBe(embedded.documentFrequency('index'));
    }
  });

  it('drops a repository whole, leaving the other as it was', async () => {
    const before = await new LexicalReader(pool, SCHEMA, [rootA]).bm25('names', { terms: ['store'] }, 20);
    await inTransaction((client) => writer.dropRepository(client, rootB));
    const { rows } = await pool.query(
      `SELECT (SELECT count(*) FROM ${s}.lexical_postings WHERE repo_id = $1)::integer + (SELECT count(*) FROM ${s}.lexical_totals WHERE repo_id = $1)::integer AS n`,
      [rootB],
    );
    expect(rows[0].n).toBe(0);
    expect(await new LexicalReader(pool, SCHEMA, [rootB]).bm25('names', { terms: ['store'] }, 20)).toEqual([]);
    expect(await new LexicalReader(pool, SCHEMA, [rootA]).bm25('names', { terms: ['store'] }, 20)).toEqual(before);
  });
});
