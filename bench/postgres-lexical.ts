/**
 * The lexical half of a search, embedded store against the Postgres store, in one run on this
 * repository's src/: every file indexed by IndexStore (SQLite FTS5) and the same elements, with
 * the same texts, written to PostgreSQL by LexicalWriter; then each query's BM25 hits over names
 * and code (what LexicalSearch asks for: elementHits, 100 candidates) through SearchReader and
 * through LexicalReader, timed per query, and their results compared (ids, order, scores).
 *
 *   node node_modules/vite-node/vite-node.mjs bench/postgres-lexical.ts [--url postgres://…]
 *
 * Without --url, PostgreSQL is PGlite (WASM, in this process, as the tests run it); with one, a
 * server: the run creates a schema of its own there and drops it at the end.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { analyzeText } from '../src/analysis/analyzer.js';
import { ftsExpression, parseQuery } from '../src/search/query.js';
// An internal bench: each store's lexical reader and writer, below the seam, compared query by query.
import { LexicalReader } from '../src/store/postgres/lexical-reader.js';
import { type LexicalElement, LexicalWriter } from '../src/store/postgres/lexical-writer.js';
import { migratePostgres } from '../src/store/postgres/schema.js';
import { SearchReader } from '../src/store/embedded/search-reader.js';
import { IndexStore } from '../src/store/embedded/index-store.js';
import { lexicalText } from '../src/text/terms.js';
import { buildDocuments, qualifiedName } from '../src/vector/document.js';
import { insertElements, insertRepositories, startPostgres } from '../test/support/postgres.js';
import { describeMachine } from '../eval/lib/machine.js';
import { median, percentile, printTable } from '../eval/lib/stats.js';

const PASSES = 7;
const LIMIT = 100;
const QUERIES = [
  'search',
  'index',
  'vector',
  'the',
  'function',
  'return',
  'const',
  'import',
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
  'indexing indexes indexer',
  'term weight document frequency',
  'NO_INDEX',
  'Index.search',
  'parse_config',
  'xyzzyplugh',
  'snippet cut lines',
  'abort signal',
  'GPU cuda device',
  'stop words',
  'throw new StoreError',
  'async await promise',
];
const NO_FILTERS = { sql: '1', params: [], active: false };

const { values } = parseArgs({ options: { url: { type: 'string' } } });
const src = fileURLToPath(new URL('../src', import.meta.url));
const paths = (readdirSync(src, { recursive: true }) as string[]).filter((name) => name.endsWith('.ts')).sort();

const local = values.url ? undefined : await startPostgres({ maxConnections: 2 });
const pool = new pg.Pool({ connectionString: values.url ?? local!.url, max: 2 });
const schema = `bench_lexical_${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'ocvector-bench-pg-'));
const store = IndexStore.open(dir);
try {
  await migratePostgres(pool, schema);
  const rootId = store.rootId(src);
  await insertRepositories(pool, `"${schema}"`, [{ id: rootId, name: 'src' }]);
  const writer = new LexicalWriter(schema);
  let sqliteMs = 0;
  let postgresMs = 0;
  let elements = 0;
  for (const name of paths) {
    const path = `src/${name}`;
    const text = readFileSync(join(src, name), 'utf8');
    const documents = buildDocuments(analyzeText(path, text), text.split('\n'));
    const update = { path, language: 'typescript', size: text.length, mtimeMs: 1, hash: 'h', error: null };
    let start = performance.now();
    const { fileId, added } = store.transaction(() =>
      store.writeFile(rootId, { ...update, status: 'indexed' }, documents, 1),
    );
    sqliteMs += performance.now() - start;
    const rows: LexicalElement[] = added.map(({ vectorId, document }) => ({
      id: vectorId,
      fileId,
      texts: {
        name: lexicalText(qualifiedName(document.element)),
        signature: lexicalText(document.element.signature),
        description: lexicalText(document.element.description),
        path: lexicalText(path),
        code: document.code ? lexicalText(document.code) : undefined,
      },
    }));
    elements += rows.length;
    start = performance.now();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await insertElements(
        client,
        `"${schema}"`,
        rootId,
        rows.map((row) => row.id),
        fileId,
      );
      await writer.add(client, rootId, rows);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    postgresMs += performance.now() - start;
  }
  await pool.query('VACUUM ANALYZE');

  const embedded = new SearchReader(store, [rootId]);
  const reader = new LexicalReader(pool, schema, [rootId]);
  const times = { sqlite: new Map<string, number[]>(), postgres: new Map<string, number[]>() };
  let hits = 0;
  let identical = 0;
  for (let pass = 0; pass <= PASSES; pass++) {
    for (const query of QUERIES) {
      const { terms } = parseQuery(query);
      const match = ftsExpression(terms);
      let start = performance.now();
      const expected = embedded.elementHits(match, match, NO_FILTERS, LIMIT);
      const sqlite = performance.now() - start;
      start = performance.now();
      const actual = await reader.elementHits({ terms }, { terms }, LIMIT);
      const postgres = performance.now() - start;
      if (pass === 0) {
        // The first pass warms both and is compared, not timed.
        hits += expected.length;
        identical += expected.filter((e, i) => actual[i]?.id === e.id && actual[i]?.score === e.score).length;
        continue;
      }
      (times.sqlite.get(query) ?? times.sqlite.set(query, []).get(query)!).push(sqlite);
      (times.postgres.get(query) ?? times.postgres.set(query, []).get(query)!).push(postgres);
    }
  }
  const row = (label: string, load: number, perQuery: Map<string, number[]>) => {
    const medians = [...perQuery.values()].map(median);
    return [
      label,
      `${((load / elements) * 1000).toFixed(0)} µs`,
      `${median(medians).toFixed(2)} ms`,
      `${percentile(medians, 95).toFixed(2)} ms`,
      `${Math.max(...medians).toFixed(2)} ms`,
    ];
  };
  const server = values.url
    ? `PostgreSQL ${(await pool.query('SHOW server_version')).rows[0].server_version} at --url`
    : 'PGlite (PostgreSQL in WASM, in process)';
  printTable(
    `Lexical hits (names + code BM25, ${LIMIT} candidates), src/: ${paths.length} files, ${elements} elements, ` +
      `${QUERIES.length} queries, median of ${PASSES} passes each; ${describeMachine()}`,
    ['store', 'write per element', 'query p50', 'query p95', 'query max'],
    [
      row('SQLite FTS5 (SearchReader)', sqliteMs, times.sqlite),
      row(`${server} (LexicalReader)`, postgresMs, times.postgres),
    ],
  );
  console.log(
    `\nparity: ${identical} of ${hits} hits with the same id at the same rank and the same score (bit for bit)`,
  );
  console.log(
    '(SQLite writes: IndexStore.writeFile, every row of the file; PostgreSQL: elements rows and lexical rows)',
  );
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
  if (values.url) await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await pool.end();
  await local?.stop();
}
