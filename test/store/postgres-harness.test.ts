import { connect, createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Postgres, startPostgres } from '../support/postgres.js';

// The harness the Postgres store's tests run on (test/support/postgres.ts): what they can count on,
// and where PGlite behind one socket differs from a PostgreSQL server.

let postgres: Postgres;
let pool: pg.Pool;
let stopped = false;

beforeAll(async () => {
  postgres = await startPostgres();
  pool = new pg.Pool({ connectionString: postgres.url, max: postgres.maxConnections });
});

afterAll(async () => {
  if (stopped) return;
  await pool?.end();
  await postgres?.stop();
});

/** Runs work on n clients of the pool held at once, then releases them. */
async function withClients<T>(n: number, work: (clients: pg.PoolClient[]) => Promise<T>): Promise<T> {
  const clients = await Promise.all(Array.from({ length: n }, () => pool.connect()));
  try {
    return await work(clients);
  } finally {
    for (const client of clients) client.release();
  }
}

/** 64 vectors of 8 dimensions, the same on every run. */
function vectors(): number[][] {
  let seed = 7;
  const next = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  return Array.from({ length: 64 }, () => Array.from({ length: 8 }, next));
}

const literal = (v: readonly number[]) => `[${v.join(',')}]`;
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const cosine = (a: readonly number[], b: readonly number[]) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));

describe('startPostgres', () => {
  it('serves PostgreSQL >= 15 with pgvector to several pg clients at once', async () => {
    expect(postgres.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    const answers = await withClients(postgres.maxConnections, (clients) =>
      Promise.all(
        clients.map((client, i) =>
          client.query<{ n: number; version: string }>(
            "SELECT $1::int AS n, current_setting('server_version_num') AS version",
            [i],
          ),
        ),
      ),
    );
    expect(answers.map((r) => r.rows[0]!.n)).toEqual([...Array(postgres.maxConnections).keys()]);
    expect(Number(answers[0]!.rows[0]!.version)).toBeGreaterThanOrEqual(150_000);
    await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
    const { rows } = await pool.query<{ extversion: string }>(
      "SELECT extversion FROM pg_extension WHERE extname = 'vector'",
    );
    expect(rows[0]!.extversion).toMatch(/^0\.[89]\./);
  });

  it('finds nearest neighbours through HNSW indexes (cosine and inner product)', async () => {
    const data = vectors();
    await pool.query(`
      CREATE TABLE items (id integer PRIMARY KEY, embedding vector(8) NOT NULL);
      CREATE INDEX items_cosine ON items USING hnsw (embedding vector_cosine_ops);
      CREATE INDEX items_ip ON items USING hnsw (embedding vector_ip_ops) WITH (m = 16, ef_construction = 64);`);
    await pool.query(
      'INSERT INTO items (id, embedding) SELECT i - 1, v::vector FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i)',
      [data.map(literal)],
    );
    const query = data[5]!.map((x, i) => x + (i % 2 ? 0.1 : -0.1));
    const byCosine = [...data.keys()].sort((a, b) => cosine(data[b]!, query) - cosine(data[a]!, query)).slice(0, 5);
    const byDot = [...data.keys()].sort((a, b) => dot(data[b]!, query) - dot(data[a]!, query)).slice(0, 5);
    await withClients(1, async ([client]) => {
      await client!.query('BEGIN');
      try {
        // Local to this transaction; SET alone would reach every connection (one backend).
        await client!.query('SET LOCAL enable_seqscan = off');
        for (const [operator, index, expected] of [
          ['<=>', 'items_cosine', byCosine],
          ['<#>', 'items_ip', byDot],
        ] as const) {
          const sql = `SELECT id FROM items ORDER BY embedding ${operator} $1::vector LIMIT 5`;
          const plan = await client!.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [literal(query)]);
          expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain(`Index Scan using ${index}`);
          const { rows } = await client!.query<{ id: number }>(sql, [literal(query)]);
          expect(rows.map((r) => r.id)).toEqual(expected);
        }
      } finally {
        await client!.query('ROLLBACK');
      }
    });
    const distance = await pool.query<{ d: number }>('SELECT embedding <=> $1::vector AS d FROM items WHERE id = 5', [
      literal(query),
    ]);
    expect(distance.rows[0]!.d).toBeCloseTo(1 - cosine(data[5]!, query), 5);
  });

  it('has one backend for every connection: an advisory lock does not exclude another connection', async () => {
    await withClients(2, async ([a, b]) => {
      const lock = 'SELECT pg_try_advisory_lock(27) AS locked, pg_backend_pid() AS pid';
      const first = (await a!.query<{ locked: boolean; pid: number }>(lock)).rows[0]!;
      const second = (await b!.query<{ locked: boolean; pid: number }>(lock)).rows[0]!;
      expect(first.locked).toBe(true);
      // On a PostgreSQL server this is false: the Postgres store's lock tests need one (or a lease row).
      expect(second.locked).toBe(true);
      expect(second.pid).toBe(first.pid);
      const unlock = 'SELECT pg_advisory_unlock(27) AS unlocked';
      expect((await b!.query(unlock)).rows[0].unlocked).toBe(true);
      expect((await a!.query(unlock)).rows[0].unlocked).toBe(true);
      expect((await a!.query(unlock)).rows[0].unlocked).toBe(false);
    });
  });

  it('leaves nothing of a rolled-back transaction, or of a failed one', async () => {
    await pool.query('CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL)');
    await withClients(1, async ([client]) => {
      await client!.query('BEGIN');
      await client!.query("INSERT INTO notes VALUES (1, 'one'), (2, 'two')");
      await client!.query('ROLLBACK');
      await client!.query('BEGIN');
      await client!.query("INSERT INTO notes VALUES (3, 'three')");
      await expect(client!.query("INSERT INTO notes VALUES (3, 'again')")).rejects.toThrow(/duplicate key/);
      await expect(client!.query('COMMIT')).resolves.toMatchObject({ command: 'ROLLBACK' });
    });
    expect((await pool.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(0);
  });

  it("keeps other connections' statements waiting until a transaction ends", async () => {
    await withClients(2, async ([writer, reader]) => {
      await writer!.query('BEGIN');
      await writer!.query("INSERT INTO notes VALUES (10, 'ten')");
      let answered = false;
      const read = reader!.query('SELECT count(*)::int AS n FROM notes').then((r) => {
        answered = true;
        return r.rows[0].n as number;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(false);
      await writer!.query('COMMIT');
      expect(await read).toBe(1);
    });
  });

  it('rolls back the transaction of a connection that closes inside it', async () => {
    const writer = await pool.connect();
    await writer.query('BEGIN');
    await writer.query("INSERT INTO notes VALUES (20, 'twenty')");
    writer.release(new Error('killed')); // closes the socket
    expect((await pool.query('SELECT count(*)::int AS n FROM notes WHERE id = 20')).rows[0].n).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(1);
  });

  it('stop() closes the server and frees its port', async () => {
    const port = Number(new URL(postgres.url).port);
    await pool.end();
    await postgres.stop();
    stopped = true;
    await postgres.stop(); // idempotent
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // Nothing left open (sockets close on the next turn of the event loop; give them a few).
    const open = () => process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP'));
    for (let turn = 0; turn < 20 && open().length > 0; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(open()).toEqual([]);
  });
});
