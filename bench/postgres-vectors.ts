/**
 * The Postgres store's vector half: nearest neighbours through pgvector's HNSW index against an
 * exact scan, over N vectors of the built-in embedder's dimension (clustered and normalised, as
 * real embeddings are: test/helpers/vectors.ts), in two repositories, searched together and one
 * alone. Prints ms per query (p50, p95) and recall@10 against the exact scan.
 *
 *   node node_modules/vite-node/vite-node.mjs bench/postgres-vectors.ts [--n 20000] [--url postgres://…]
 *
 * Without --url, PostgreSQL is PGlite (WASM, in this process, as the tests run it); with one, a
 * server with pgvector: the run creates a schema of its own there and drops it at the end. The
 * vectors are written by VectorWriter.put into each repository's partition, whose HNSW index is
 * built afterwards, as a first load builds it (pgvector's advice for a bulk load; the build time
 * is printed).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
// An internal bench: pgvector's HNSW index against an exact scan, below the PostgreSQL store's seam.
import { migratePostgres } from '../src/store/postgres/schema.js';
import { nearestSql, VectorReader, type VectorHit } from '../src/store/postgres/vector-reader.js';
import {
  buildVectorIndex,
  placeRepository,
  recordVectorSpace,
  spaceTables,
} from '../src/store/postgres/vector-space.js';
import { type ElementVector, VectorWriter } from '../src/store/postgres/vector-writer.js';
import { BUILTIN_DEFAULT_DIMENSION } from '../src/vector/builtin-embedder.js';
import { clusteredVectors } from '../test/helpers/vectors.js';
import { insertElements, insertRepositories, startPostgres } from '../test/support/postgres.js';
import { describeMachine } from '../eval/lib/machine.js';
import { ms, percentile, printTable } from '../eval/lib/stats.js';
import { inTransaction } from '../src/store/postgres/transaction.js';

const { values } = parseArgs({ options: { url: { type: 'string' }, n: { type: 'string' } } });
const N = Number(values.n ?? 20_000);
const D = BUILTIN_DEFAULT_DIMENSION;
const QUERIES = 50;
const K = 10;
const BATCH = 500;
const EMBEDDER = `bench:${D}`;

const local = values.url ? undefined : await startPostgres({ maxConnections: 2 });
const pool = new pg.Pool({ connectionString: values.url ?? local!.url, max: 2 });
const schema = `bench_vectors_${process.pid}`;
const s = `"${schema}"`;

const transaction = <T>(work: (client: pg.PoolClient) => Promise<T>) => inTransaction(pool, work);

try {
  await migratePostgres(pool, schema);
  // Repository 1 holds the first half of the elements, 2 the second.
  await insertRepositories(pool, s, [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ]);
  const repoOf = (id: number) => (id <= N / 2 ? 1 : 2);
  const ids = Array.from({ length: N }, (_, i) => i + 1);
  await insertElements(pool, s, 1, ids.slice(0, Math.floor(N / 2)));
  await insertElements(pool, s, 2, ids.slice(Math.floor(N / 2)));
  const space = await transaction((client) => recordVectorSpace(client, schema, EMBEDDER, D));
  const { vectors: table } = spaceTables(schema, space);
  for (const repo of [1, 2]) await placeRepository(pool, schema, space, repo, { indexLater: true });

  const base = clusteredVectors(N, D, 1);
  const queries = clusteredVectors(QUERIES, D, 2);
  const writer = new VectorWriter(schema);
  let started = performance.now();
  for (let from = 1; from <= N; from += BATCH) {
    await transaction(async (client) => {
      for (const repo of [1, 2]) {
        const batch: ElementVector[] = [];
        for (let id = from; id < Math.min(from + BATCH, N + 1); id++)
          if (repoOf(id) === repo)
            batch.push({ id, documentHash: `h${id}`, vector: base.subarray((id - 1) * D, id * D) });
        await writer.put(client, EMBEDDER, repo, batch);
      }
    });
  }
  const writeMs = performance.now() - started;
  started = performance.now();
  await transaction(async (client) => {
    await client.query("SET LOCAL maintenance_work_mem = '512MB'");
    for (const repo of [1, 2]) await buildVectorIndex(client, schema, space, repo);
  });
  await pool.query(`ANALYZE ${table}`);
  const buildMs = performance.now() - started;

  const reader = new VectorReader(pool, schema);
  const rows: string[][] = [];
  for (const repos of [[1, 2], [2]]) {
    const run = async (exact: boolean) => {
      const times: number[] = [];
      const hits: VectorHit[][] = [];
      for (let pass = 0; pass < 2; pass++)
        for (let q = 0; q < QUERIES; q++) {
          const t = performance.now();
          const found = await reader.nearest({
            embedder: EMBEDDER,
            vector: queries.subarray(q * D, (q + 1) * D),
            repoIds: repos,
            k: K,
            exact,
          });
          // The first pass warms the caches; the second is timed.
          if (pass === 1) {
            times.push(performance.now() - t);
            hits.push(found);
          }
        }
      return { times, hits };
    };
    // What the planner chose for the indexed search (it may scan a small repository exactly).
    const plan = await transaction(async (client) => {
      await client.query("SELECT set_config('hnsw.ef_search', '100', true)");
      await client.query("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)");
      const { rows } = await client.query(`EXPLAIN ${nearestSql(schema, space)}`, [
        `[${Array.from(queries.subarray(0, D)).join(',')}]`,
        repos,
        K,
      ]);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    const indexed = /Index Scan using \S*hnsw/.test(plan) ? 'HNSW index' : 'planner scanned (no index)';
    const exact = await run(true);
    const hnsw = await run(false);
    let found = 0;
    hnsw.hits.forEach((list, q) => {
      const truth = new Set(exact.hits[q]!.map((hit) => hit.id));
      found += list.filter((hit) => truth.has(hit.id)).length;
    });
    const vectors = repos.length === 2 ? N : N - Math.floor(N / 2);
    const label = `${repos.length === 2 ? 'both repositories' : 'one repository'} (${vectors.toLocaleString('en')} vectors of ${N.toLocaleString('en')})`;
    for (const [name, result] of [
      ['exact scan', exact],
      [`indexed, ef_search 100: ${indexed}`, hnsw],
    ] as const)
      rows.push([
        label,
        name,
        ms(percentile(result.times, 50)),
        ms(percentile(result.times, 95)),
        result === hnsw ? (found / (QUERIES * K)).toFixed(3) : '1',
      ]);
  }
  const server = values.url
    ? `PostgreSQL ${(await pool.query('SHOW server_version')).rows[0].server_version} at --url`
    : `PGlite ${(await pool.query('SHOW server_version')).rows[0].server_version} (WASM, in process)`;
  const pgvector = (await pool.query("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).rows[0]
    .extversion;
  printTable(
    `${N.toLocaleString('en')} vectors of ${D} dimensions, ${QUERIES} queries, k = ${K}; ${server}, pgvector ${pgvector}; ` +
      `write ${ms(writeMs / N, 3)} per vector, HNSW build ${(buildMs / 1000).toFixed(1)} s; ${describeMachine()}`,
    ['searched', 'how', 'p50', 'p95', 'recall@10'],
    rows,
  );
} finally {
  if (values.url) await pool.query(`DROP SCHEMA ${s} CASCADE`).catch(() => undefined);
  await pool.end();
  await local?.stop();
}
