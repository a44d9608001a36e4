/**
 * The Postgres store's vector half (src/store/postgres/vector-*.ts) on PGlite with pgvector:
 * nearest neighbours over some repositories against brute force (exact scans equal it, HNSW
 * recalls it), removal, reuse of embeddings by document hash, and the errors.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { analyzeAfterLoad } from '../../src/store/postgres/load-statistics.js';
import { migratePostgres, POSTGRES_SCHEMA_VERSION, quoteSchema } from '../../src/store/postgres/schema.js';
import { nearestSql, VectorReader } from '../../src/store/postgres/vector-reader.js';
import {
  buildVectorIndex,
  findVectorSpace,
  placeRepository,
  recordVectorSpace,
} from '../../src/store/postgres/vector-space.js';
import { type ElementVector, VectorWriter } from '../../src/store/postgres/vector-writer.js';
import { bruteForce, clusteredVectors, slice } from '../helpers/vectors.js';
import { insertElements, insertRepositories, type Postgres, schemaAt, startPostgres } from '../support/postgres.js';
import { inTransaction } from '../../src/store/postgres/transaction.js';

const SCHEMA = 'vectors_test';
const s = quoteSchema(SCHEMA);
const EMBEDDER = 'test:v1:32';
const D = 32;
/** Repository A holds elements 1..N_A, B the next N_B. */
const N_A = 1500;
const N_B = 700;
const N = N_A + N_B;
const QUERIES = 20;
const K = 10;
const REPO_A = 1;
const REPO_B = 2;

let postgres: Postgres;
let pool: pg.Pool;
const writer = new VectorWriter(SCHEMA);
const base = clusteredVectors(N, D, 7);
const queries = clusteredVectors(QUERIES, D, 8);
/** Element ids are 1-based: row i of `base` is element i + 1. */
const repoOf = (id: number) => (id <= N_A ? REPO_A : REPO_B);

const transaction = <T>(work: (client: pg.PoolClient) => Promise<T>) => inTransaction(pool, work);

/** Brute force over the elements of some repositories still present: ids and inner products, best first. */
function truth(q: number, repos: readonly number[], k: number, removed = new Set<number>()) {
  const ids: number[] = [];
  for (let id = 1; id <= N; id++) if (repos.includes(repoOf(id)) && !removed.has(id)) ids.push(id);
  const subset = new Float32Array(ids.length * D);
  ids.forEach((id, i) => subset.set(base.subarray((id - 1) * D, id * D), i * D));
  const [{ labels, distances }] = bruteForce(subset, slice(queries, D, q, q + 1), D, k, 'ip') as [
    { labels: number[]; distances: number[] },
  ];
  return { ids: labels.map((i) => ids[i]!), scores: distances };
}

/** Settings that leave the planner the HNSW index alone (for a repository it would rather scan). */
const INDEX_ONLY: readonly string[] = [
  'SET LOCAL enable_seqscan = off',
  'SET LOCAL enable_bitmapscan = off',
  'SET LOCAL enable_sort = off',
];

const query = (q: number) => queries.subarray(q * D, (q + 1) * D);

beforeAll(async () => {
  postgres = await startPostgres({ maxConnections: 4 });
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  await migratePostgres(pool, SCHEMA);
  await insertRepositories(pool, s, [
    { id: REPO_A, name: 'a' },
    { id: REPO_B, name: 'b' },
  ]);
  const ids = Array.from({ length: N }, (_, i) => i + 1);
  await insertElements(pool, s, REPO_A, ids.slice(0, N_A));
  await insertElements(pool, s, REPO_B, ids.slice(N_A));
  // As a run loads each repository: its partition first, its graph once its vectors are in.
  const space = await transaction((client) => recordVectorSpace(client, SCHEMA, EMBEDDER, D));
  for (const repo of [REPO_A, REPO_B])
    expect(await placeRepository(pool, SCHEMA, space, repo, { indexLater: true })).toEqual({ indexPending: true });
  for (let from = 1; from <= N; from += 500) {
    await transaction(async (client) => {
      for (const repo of [REPO_A, REPO_B]) {
        const batch: ElementVector[] = [];
        for (let id = from; id < Math.min(from + 500, N + 1); id++)
          if (repoOf(id) === repo)
            batch.push({ id, documentHash: `h${id}`, vector: base.subarray((id - 1) * D, id * D) });
        await writer.put(client, EMBEDDER, repo, batch);
      }
    });
  }
  for (const repo of [REPO_A, REPO_B]) await transaction((client) => buildVectorIndex(client, SCHEMA, space, repo));
  // Statistics, as autovacuum would gather them: without, the planner guesses a few rows and
  // scans by the primary key (exact) rather than through the HNSW index.
  await pool.query(`ANALYZE ${s}.element_vectors_1`);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await postgres?.stop();
});

describe('the vector space', () => {
  it('is recorded once, with its dimension, a table partitioned by repository and an HNSW index of the inner product in each', async () => {
    const space = await findVectorSpace(pool, SCHEMA, EMBEDDER);
    expect(space).toMatchObject({ embedder: EMBEDDER, dimension: D, indexed: true });
    expect(await transaction((client) => recordVectorSpace(client, SCHEMA, EMBEDDER, D))).toEqual(space);
    const { rows } = await pool.query(
      `SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%hnsw%' ORDER BY tablename`,
      [SCHEMA],
    );
    expect(rows.map((row) => row.tablename)).toEqual(['element_vectors_1_1', 'element_vectors_1_2']);
    for (const { indexdef } of rows) {
      expect(indexdef).toContain('vector_ip_ops');
      expect(indexdef).toMatch(/m='?16'?, ef_construction='?64'?/);
    }
    const partitions = await pool.query(
      `SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
      [`${s}.element_vectors_1`],
    );
    expect(partitions.rows).toEqual([
      { relname: 'element_vectors_1_1', bound: 'FOR VALUES IN (1)' },
      { relname: 'element_vectors_1_2', bound: 'FOR VALUES IN (2)' },
    ]);
  });

  it("takes the writers' lock only to record a new space, so that runs of different repositories never wait on it", async () => {
    // The lock lasts until the caller's transaction ends: a whole indexing run.
    const advisoryLocks = async (client: pg.PoolClient) =>
      Number(
        (
          await client.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
          )
        ).rows[0]!.n,
      );
    const held = (embedder: string) =>
      transaction(async (client) => {
        const before = await advisoryLocks(client);
        await recordVectorSpace(client, SCHEMA, embedder, D);
        return (await advisoryLocks(client)) - before;
      });
    expect(await held(EMBEDDER)).toBe(0);
    expect(await held('locks:v1:32')).toBe(1);
    expect(await held('locks:v1:32')).toBe(0);
  });

  it('refuses the same embedder with another dimension (StoreError EMBEDDER_MISMATCH), and a bad dimension', async () => {
    const mismatch = transaction((client) => recordVectorSpace(client, SCHEMA, EMBEDDER, D + 1));
    await expect(mismatch).rejects.toBeInstanceOf(StoreError);
    await expect(mismatch).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH', message: /has 32 dimensions.*not 33/ });
    for (const dimension of [0, 1.5, Number.NaN, 16_001])
      await expect(transaction((client) => recordVectorSpace(client, SCHEMA, 'other', dimension))).rejects.toThrow(
        RangeError,
      );
    expect(await findVectorSpace(pool, SCHEMA, 'other')).toBeUndefined();
  });

  it("makes a repository's partition once, its HNSW index now or left to the caller (a first load)", async () => {
    const hnsw = async (client: pg.Pool | pg.PoolClient) =>
      (
        await client.query<{ indexname: string }>(
          `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%hnsw%' ORDER BY indexname`,
          [SCHEMA],
        )
      ).rows.map((row) => row.indexname);
    const before = await hnsw(pool);
    const space = await transaction(async (client) => {
      const made = await recordVectorSpace(client, SCHEMA, 'later:v1:32', D);
      expect(made).toMatchObject({ embedder: 'later:v1:32', indexed: true, created: true });
      expect(await placeRepository(client, SCHEMA, made, REPO_A, { indexLater: true })).toEqual({ indexPending: true });
      expect(await hnsw(client)).toEqual(before);
      await writer.put(client, 'later:v1:32', REPO_A, [{ id: 1, documentHash: 'h1', vector: base.subarray(0, D) }]);
      const setting = async () =>
        (await client.query("SELECT current_setting('min_parallel_table_scan_size') AS v")).rows[0].v;
      const scanSize = await setting();
      await buildVectorIndex(client, SCHEMA, made, REPO_A);
      expect(await hnsw(client)).toEqual([...before, `element_vectors_${made.id}_${REPO_A}_hnsw`].sort());
      // The build's setting (workers for a table loaded in this transaction) is put back.
      expect(await setting()).toBe(scanSize);
      // Placed again: nothing to do.
      expect(await placeRepository(client, SCHEMA, made, REPO_A, { indexLater: true })).toEqual({});
      return made;
    });
    expect(
      (await transaction((client) => recordVectorSpace(client, SCHEMA, 'later:v1:32', D))).created,
    ).toBeUndefined();
    // Another repository of a space others see, made apart (committed at once) with its index now.
    expect(await placeRepository(pool, SCHEMA, space, REPO_B, { apart: pool })).toEqual({});
    expect(await hnsw(pool)).toContain(`element_vectors_${space.id}_${REPO_B}_hnsw`);
    // A repository without a partition takes no vectors: a clear error, nothing written.
    await expect(
      transaction((client) =>
        writer.put(client, 'later:v1:32', 3, [{ id: N + 3, documentHash: 'h1', vector: base.subarray(0, D) }]),
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/repository 3 has no partition/) });
  });

  it('gets planner statistics after a large load, so that a search of every repository goes through its index', async () => {
    const space = await transaction(async (client) => {
      const made = await recordVectorSpace(client, SCHEMA, 'analysed:v1:32', D);
      await placeRepository(client, SCHEMA, made, REPO_A);
      const vectors = Array.from({ length: 50 }, (_, i) => ({
        id: i + 1,
        documentHash: `h${i + 1}`,
        vector: base.subarray(i * D, (i + 1) * D),
      }));
      await writer.put(client, 'analysed:v1:32', REPO_A, vectors);
      return made;
    });
    // The repository's partition: the other repositories' vectors did not change.
    const table = `element_vectors_${space.id}_${REPO_A}`;
    const hasStatistics = async (column = 'repo_id') =>
      (
        await pool.query(`SELECT 1 FROM pg_stats WHERE schemaname = $1 AND tablename = $2 AND attname = $3`, [
          SCHEMA,
          table,
          column,
        ])
      ).rows.length > 0;
    expect(await hasStatistics()).toBe(false);
    const client = await pool.connect();
    try {
      await analyzeAfterLoad(client, s, SCHEMA, { embedder: 'analysed:v1:32', repoId: REPO_A });
    } finally {
      client.release();
    }
    expect(await hasStatistics()).toBe(true);
    // The columns plans filter on, not the vectors themselves (their statistics serve no plan).
    expect(await hasStatistics('embedding')).toBe(false);
  });

  it('is taken back with a transaction that rolls back', async () => {
    await expect(
      transaction(async (client) => {
        await recordVectorSpace(client, SCHEMA, 'rolled-back', 8);
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect(await findVectorSpace(pool, SCHEMA, 'rolled-back')).toBeUndefined();
  });
});

describe('nearest neighbours', () => {
  const reader = () => new VectorReader(pool, SCHEMA);

  it('scanning exactly: the ids and scores of brute force over the repositories asked for', async () => {
    for (const repos of [[REPO_A], [REPO_B], [REPO_A, REPO_B]]) {
      for (let q = 0; q < QUERIES; q++) {
        const hits = await reader().nearest({
          embedder: EMBEDDER,
          vector: query(q),
          repoIds: repos,
          k: K,
          exact: true,
        });
        const expected = truth(q, repos, K);
        expect(hits.map((hit) => hit.id)).toEqual(expected.ids);
        hits.forEach((hit, i) => expect(Math.abs(hit.score - expected.scores[i]!)).toBeLessThan(1e-5));
      }
    }
  });

  it('through the HNSW index: recall@10 of at least 0.95, scores exact, k rows despite the filter', async () => {
    // Repository B alone through the index too (the planner would scan its third exactly): the
    // filter drops two thirds of what the graph yields, and iterative scans still give k rows.
    for (const [repos, settings] of [
      [[REPO_A, REPO_B], []],
      [[REPO_B], INDEX_ONLY],
    ] as const) {
      let found = 0;
      for (let q = 0; q < QUERIES; q++) {
        const hits = await transaction(async (client) => {
          for (const setting of settings) await client.query(setting);
          return new VectorReader(client, SCHEMA).nearest({
            embedder: EMBEDDER,
            vector: query(q),
            repoIds: repos,
            k: K,
          });
        });
        expect(hits).toHaveLength(K);
        const expected = truth(q, repos, K);
        const wanted = new Set(expected.ids);
        found += hits.filter((hit) => wanted.has(hit.id)).length;
        for (const hit of hits) {
          expect(repos).toContain(repoOf(hit.id));
          const v = base.subarray((hit.id - 1) * D, hit.id * D);
          const ip = query(q).reduce((sum, x, j) => sum + x * v[j]!, 0);
          expect(Math.abs(hit.score - ip)).toBeLessThan(1e-5);
        }
        for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
      }
      if (process.env.OCVECTOR_PRINT_RECALL) console.log(repos, found / (QUERIES * K));
      expect(found / (QUERIES * K)).toBeGreaterThanOrEqual(0.95);
    }
    // More rows than hnsw.ef_search, of a third of the vectors: the graph alone yields ef_search
    // candidates (about 13 of them in B); iterative scans go on until k are found.
    const many = await transaction(async (client) => {
      for (const setting of INDEX_ONLY) await client.query(setting);
      return new VectorReader(client, SCHEMA).nearest({
        embedder: EMBEDDER,
        vector: query(0),
        repoIds: [REPO_B],
        k: 50,
        efSearch: 40,
      });
    });
    expect(many).toHaveLength(50);
    expect(new Set(many.map((hit) => repoOf(hit.id)))).toEqual(new Set([REPO_B]));
  });

  it('the index is what answers (the plan), unless exact', async () => {
    const space = (await findVectorSpace(pool, SCHEMA, EMBEDDER))!;
    const plan = (settings: string[], repos = [REPO_A, REPO_B]) =>
      transaction(async (client) => {
        for (const setting of settings) await client.query(setting);
        const { rows } = await client.query(`EXPLAIN ${nearestSql(SCHEMA, space)}`, [
          `[${Array.from(query(0)).join(',')}]`,
          repos,
          K,
        ]);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    const iterative = 'SET LOCAL hnsw.iterative_scan = relaxed_order';
    // Every repository: their graphs' ordered scans, merged. (Partitions this small, the planner
    // would rather scan exactly, unless told not to; at 7,481 vectors of 512 dimensions it takes
    // the graphs by itself: docs/postgres.md.)
    const both = await plan([iterative, ...INDEX_ONLY]);
    expect(both).toMatch(/Merge Append[\s\S]*Index Scan using element_vectors_1_1_hnsw[\s\S]*element_vectors_1_2_hnsw/);
    // One repository: its own graph alone.
    const one = await plan([iterative, ...INDEX_ONLY], [REPO_B]);
    expect(one).toMatch(/Index Scan using element_vectors_1_2_hnsw/);
    expect(one).not.toMatch(/element_vectors_1_1/);
    expect(await plan(['SET LOCAL enable_indexscan = off'])).not.toMatch(/hnsw/);
  });

  it('leaves no setting behind, on a pool or on a client in a transaction', async () => {
    await transaction(async (client) => {
      const before = await client.query("SELECT current_setting('enable_indexscan') AS v");
      const hits = await new VectorReader(client, SCHEMA).nearest({
        embedder: EMBEDDER,
        vector: query(1),
        repoIds: [REPO_A],
        k: 3,
        exact: true,
      });
      expect(hits.map((hit) => hit.id)).toEqual(truth(1, [REPO_A], 3).ids);
      const after = await client.query("SELECT current_setting('enable_indexscan') AS v");
      expect(after.rows[0].v).toBe(before.rows[0].v);
    });
    const { rows } = await pool.query("SELECT current_setting('hnsw.ef_search') AS v");
    expect(rows[0].v).toBe('40');
  });

  it('no repositories, no hits', async () => {
    expect(await reader().nearest({ embedder: EMBEDDER, vector: query(0), repoIds: [], k: K })).toEqual([]);
  });

  it('refuses bad arguments with clear errors', async () => {
    const ok = { embedder: EMBEDDER, vector: query(0), repoIds: [REPO_A], k: K };
    for (const k of [0, -1, 1.5, Number.NaN, 10_001])
      await expect(reader().nearest({ ...ok, k })).rejects.toThrow(/k must be an integer from 1 to 10000/);
    for (const efSearch of [0, 1001, 2.5])
      await expect(reader().nearest({ ...ok, efSearch })).rejects.toThrow(/efSearch must be an integer/);
    const nan = Float32Array.from(query(0));
    nan[3] = Number.NaN;
    await expect(reader().nearest({ ...ok, vector: nan })).rejects.toThrow(/query vector holds NaN at 3/);
    const short = reader().nearest({ ...ok, vector: query(0).subarray(0, D - 1) });
    await expect(short).rejects.toBeInstanceOf(StoreError);
    await expect(short).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH', message: /31 dimensions.*32/ });
    await expect(reader().nearest({ ...ok, embedder: 'nobody' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(reader().nearest({ ...ok, repoIds: [1.5] })).rejects.toThrow(/not a repository id/);
  });
});

describe('writing', () => {
  it('refuses a vector of another dimension or with NaN or an infinity, writing nothing', async () => {
    const wrong = transaction((client) =>
      writer.put(client, EMBEDDER, REPO_A, [{ id: 1, documentHash: 'x', vector: new Float32Array(D + 1) }]),
    );
    await expect(wrong).rejects.toBeInstanceOf(StoreError);
    await expect(wrong).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const vector = new Float32Array(D);
      vector[0] = bad;
      await expect(
        transaction((client) => writer.put(client, EMBEDDER, REPO_A, [{ id: 1, documentHash: 'x', vector }])),
      ).rejects.toThrow(/must be finite numbers/);
    }
    await expect(
      transaction((client) => writer.put(client, 'nobody', REPO_A, [{ id: 1, documentHash: 'x', vector: query(0) }])),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      transaction((client) =>
        writer.put(client, EMBEDDER, REPO_A, [
          { id: 1, documentHash: 'x', vector: query(0) },
          { id: 1, documentHash: 'y', vector: query(1) },
        ]),
      ),
    ).rejects.toThrow(/element 1 is twice in the batch/);
    expect(await writer.getEmbedding(pool, EMBEDDER, 'x')).toBeUndefined();
  });

  it('reuses embeddings by document hash, across repositories, exactly', async () => {
    const got = await writer.getEmbedding(pool, EMBEDDER, 'h5');
    expect(got).toEqual(base.slice(4 * D, 5 * D));
    const many = await writer.getEmbeddings(pool, EMBEDDER, ['h1', `h${N}`, 'absent']);
    expect([...many.keys()].sort()).toEqual(['h1', `h${N}`]);
    expect(many.get(`h${N}`)).toEqual(base.slice((N - 1) * D, N * D));
    expect(await writer.getEmbedding(pool, 'nobody', 'h1')).toBeUndefined();
    // Element 1's document, put into repository B under another element: found by its hash, from either.
    await insertElements(pool, s, REPO_B, [N + 1]);
    await transaction(async (client) => {
      const vector = (await writer.getEmbedding(client, EMBEDDER, 'h1'))!;
      await writer.put(client, EMBEDDER, REPO_B, [{ id: N + 1, documentHash: 'h1', vector }]);
    });
    const space = (await findVectorSpace(pool, SCHEMA, EMBEDDER))!;
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM ${s}.element_vectors_${space.id} WHERE document_hash = 'h1'`,
    );
    expect(rows[0].n).toBe(2);
    expect(await writer.getEmbedding(pool, EMBEDDER, 'h1')).toEqual(base.slice(0, D));
    const hits = await new VectorReader(pool, SCHEMA).nearest({
      embedder: EMBEDDER,
      vector: base.subarray(0, D),
      repoIds: [REPO_B],
      k: 1,
      exact: true,
    });
    expect(hits[0]!.id).toBe(N + 1);
    expect(await transaction((client) => writer.remove(client, EMBEDDER, REPO_B, [N + 1]))).toBe(1);
  });

  it('removes vectors: gone from every search, exact or through the index, and from reuse', async () => {
    const reader = new VectorReader(pool, SCHEMA);
    const gone = new Set(truth(2, [REPO_A], 5).ids);
    // Removing from the wrong repository removes nothing.
    expect(await transaction((client) => writer.remove(client, EMBEDDER, REPO_B, [...gone]))).toBe(0);
    expect(await transaction((client) => writer.remove(client, EMBEDDER, REPO_A, [...gone]))).toBe(5);
    for (const exact of [true, false]) {
      const hits = await reader.nearest({ embedder: EMBEDDER, vector: query(2), repoIds: [REPO_A], k: K, exact });
      expect(hits.filter((hit) => gone.has(hit.id))).toEqual([]);
      if (exact) expect(hits.map((hit) => hit.id)).toEqual(truth(2, [REPO_A], K, gone).ids);
    }
    // No element holds the document any more: nothing to reuse.
    expect(await writer.getEmbedding(pool, EMBEDDER, `h${[...gone][0]}`)).toBeUndefined();
    // Put back: found again.
    await transaction((client) =>
      writer.put(
        client,
        EMBEDDER,
        REPO_A,
        [...gone].map((id) => ({ id, documentHash: `h${id}`, vector: base.subarray((id - 1) * D, id * D) })),
      ),
    );
    const back = await reader.nearest({ embedder: EMBEDDER, vector: query(2), repoIds: [REPO_A], k: 5, exact: true });
    expect(new Set(back.map((hit) => hit.id))).toEqual(gone);
  });

  it('drops a repository: its vectors go, the other repository keeps its own', async () => {
    await insertRepositories(pool, s, [{ id: 3, name: 'c' }]);
    await insertElements(pool, s, 3, [N + 2]);
    await placeRepository(pool, SCHEMA, (await findVectorSpace(pool, SCHEMA, EMBEDDER))!, 3);
    await transaction((client) =>
      writer.put(client, EMBEDDER, 3, [{ id: N + 2, documentHash: 'h1', vector: base.subarray(0, D) }]),
    );
    expect(await transaction((client) => writer.dropRepository(client, 3))).toBe(1);
    const reader = new VectorReader(pool, SCHEMA);
    expect(await reader.nearest({ embedder: EMBEDDER, vector: query(0), repoIds: [3], k: K, exact: true })).toEqual([]);
    expect(
      await reader.nearest({ embedder: EMBEDDER, vector: query(0), repoIds: [REPO_B], k: K, exact: true }),
    ).toHaveLength(K);
  });
});

describe('an older store (schema 6)', () => {
  it("is partitioned by repository when migrated: the same rows, each repository's own graph, no foreign key", async () => {
    const old = await schemaAt(pool, 'vectors_at_six', 6);
    await insertRepositories(pool, old, [
      { id: 7, name: 'seven' },
      { id: 8, name: 'eight' },
    ]);
    const ids = Array.from({ length: 100 }, (_, i) => i + 1);
    const repoOfOld = (id: number) => (id <= 60 ? 7 : 8);
    await insertElements(pool, old, 7, ids.slice(0, 60));
    await insertElements(pool, old, 8, ids.slice(60));
    // The space's table as versions up to 6 made it: one table, one graph, a key to elements.
    await pool.query(`
      INSERT INTO ${old}.vector_spaces (embedder, dimension, indexed) VALUES ('old:v1:32', ${D}, true);
      CREATE TABLE ${old}.element_vectors_1 (repo_id integer NOT NULL, element_id bigint NOT NULL,
        document_hash text NOT NULL, embedding vector(${D}) NOT NULL, PRIMARY KEY (repo_id, element_id),
        FOREIGN KEY (repo_id, element_id) REFERENCES ${old}.elements (repo_id, id));
      CREATE INDEX element_vectors_1_by_hash ON ${old}.element_vectors_1 (document_hash);
      ALTER TABLE ${old}.element_vectors_1 ALTER COLUMN embedding SET STORAGE PLAIN;
      CREATE INDEX element_vectors_1_hnsw ON ${old}.element_vectors_1 USING hnsw (embedding vector_ip_ops)
        WITH (m = 16, ef_construction = 64);
    `);
    const text = (id: number) => `[${Array.from(base.subarray((id - 1) * D, id * D)).join(',')}]`;
    await pool.query(
      `INSERT INTO ${old}.element_vectors_1 SELECT r, e, 'h' || e, v::vector FROM unnest($1::int[], $2::bigint[], $3::text[]) AS u(r, e, v)`,
      [ids.map(repoOfOld), ids, ids.map(text)],
    );
    const rows = (table: string) =>
      pool
        .query(`SELECT repo_id, element_id::int, document_hash, embedding::text FROM ${table} ORDER BY element_id`)
        .then((result) => result.rows);
    const before = await rows(`${old}.element_vectors_1`);

    expect(await migratePostgres(pool, 'vectors_at_six')).toEqual({ from: 6, to: POSTGRES_SCHEMA_VERSION });
    expect(await rows(`${old}.element_vectors_1`)).toEqual(before);
    expect(await rows(`${old}.element_vectors_1_7`)).toEqual(before.filter((row) => row.repo_id === 7));
    expect(await rows(`${old}.element_vectors_1_8`)).toEqual(before.filter((row) => row.repo_id === 8));
    const indexes = await pool.query(
      `SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'vectors_at_six' AND indexname LIKE 'element_vectors_1%'
       ORDER BY indexname COLLATE "C"`,
    );
    expect(indexes.rows).toEqual([
      { tablename: 'element_vectors_1_7', indexname: 'element_vectors_1_7_document_hash_idx' },
      { tablename: 'element_vectors_1_7', indexname: 'element_vectors_1_7_hnsw' },
      { tablename: 'element_vectors_1_7', indexname: 'element_vectors_1_7_pkey' },
      { tablename: 'element_vectors_1_8', indexname: 'element_vectors_1_8_document_hash_idx' },
      { tablename: 'element_vectors_1_8', indexname: 'element_vectors_1_8_hnsw' },
      { tablename: 'element_vectors_1_8', indexname: 'element_vectors_1_8_pkey' },
      { tablename: 'element_vectors_1', indexname: 'element_vectors_1_by_hash' },
      { tablename: 'element_vectors_1', indexname: 'element_vectors_1_pkey' },
    ]);
    const keys = await pool.query(
      "SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE '%element_vectors%'",
    );
    expect(keys.rows[0].n).toBe(0);
    const storage = await pool.query(
      `SELECT attstorage FROM pg_attribute WHERE attrelid = '${old}.element_vectors_1_8'::regclass AND attname = 'embedding'`,
    );
    expect(storage.rows[0].attstorage).toBe('p');
    // Searched as before, and written as a run writes: a new repository gets a partition of its own.
    const reader = new VectorReader(pool, 'vectors_at_six');
    const hits = await reader.nearest({ embedder: 'old:v1:32', vector: base.subarray(0, D), repoIds: [7, 8], k: 3 });
    expect(hits[0]).toMatchObject({ id: 1 });
    await insertRepositories(pool, old, [{ id: 9, name: 'nine' }]);
    await insertElements(pool, old, 9, [101]);
    const space = (await findVectorSpace(pool, 'vectors_at_six', 'old:v1:32'))!;
    expect(await placeRepository(pool, 'vectors_at_six', space, 9, { apart: pool })).toEqual({});
    const writer9 = new VectorWriter('vectors_at_six');
    await transaction((client) =>
      writer9.put(client, 'old:v1:32', 9, [{ id: 101, documentHash: 'h101', vector: base.subarray(0, D) }]),
    );
    const nine = await reader.nearest({ embedder: 'old:v1:32', vector: base.subarray(0, D), repoIds: [9], k: 3 });
    expect(nine.map((hit) => hit.id)).toEqual([101]);
  });
});
