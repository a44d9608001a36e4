/**
 * A PostgreSQL with pgvector for tests, from npm alone: PGlite (PostgreSQL compiled to WASM, in
 * memory) with its vector extension, served on a loopback port by @electric-sql/pglite-socket, so
 * that the `pg` client production uses connects to it by URL.
 *
 * What differs from a PostgreSQL server (test/store/postgres-harness.test.ts pins each point):
 * - One backend serves every connection: session state is shared (SET, advisory locks: a lock taken
 *   on one connection does not stop another from taking it; pg_backend_pid() is the same).
 * - Statements run one at a time, and while one connection is inside a transaction, the others'
 *   statements wait for its end (no concurrent transactions, so no conflicts and no deadlocks).
 * - A connection that closes inside a transaction has it rolled back (as a killed client's would be).
 * - More than maxConnections clients are refused with a line of text that `pg` cannot parse: keep a
 *   pg.Pool's `max` at or under it.
 * - Close clients and pools before stop(): it drops the connections still open.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { POSTGRES_MIGRATIONS, quoteSchema } from '../../src/store/postgres/schema.js';

export interface Postgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** Connections the server accepts at once. */
  maxConnections: number;
  /**
   * The server goes away (every connection dropped, the port closed) until the returned
   * function brings it back on the same port, with the same database: a server restart.
   */
  outage(): Promise<() => Promise<void>>;
  /** Closes the server (and any connection still open) and the database; the port is free after it. Idempotent. */
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Default 8. */
  maxConnections?: number;
  /** Load pgvector (default true): without it, the server is one the store must refuse. */
  vector?: boolean;
}

/** Starts an empty database (extension `vector` available, not created) on a free loopback port. */
export async function startPostgres(options: PostgresOptions = {}): Promise<Postgres> {
  const maxConnections = options.maxConnections ?? 8;
  const db = await PGlite.create(options.vector === false ? {} : { extensions: { vector } });
  let server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  // getServerConn() is host:port once listening (the port the system chose for port 0).
  const address = server.getServerConn();
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://postgres@${address}/postgres`,
    maxConnections,
    async outage() {
      await server.stop();
      return async () => {
        server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections });
        await server.start();
      };
    },
    stop: () =>
      (stopped ??= (async () => {
        try {
          await server.stop();
        } finally {
          await db.close();
        }
      })()),
  };
}

type Queryable = { query(text: string, values?: unknown[]): Promise<unknown> };

/** Repositories rows (tests of the lexical and vector halves alone, without a run). */
export async function insertRepositories(db: Queryable, s: string, repos: readonly { id: number; name: string }[]) {
  await db.query(
    `INSERT INTO ${s}.repositories (id, name, root) SELECT id, name, '/repos/' || name FROM unnest($1::int[], $2::text[]) AS r(id, name)`,
    [repos.map((r) => r.id), repos.map((r) => r.name)],
  );
}

/**
 * Elements of a repository with placeholder columns, in a file of that repository (made when
 * missing), for tests of the lexical and vector halves alone: what those halves hang on.
 */
export async function insertElements(db: Queryable, s: string, repoId: number, ids: readonly number[], fileId = 1) {
  await db.query(
    `INSERT INTO ${s}.files (repo_id, id, path, size, mtime_ms, status, indexed_at)
     VALUES ($1, $2::bigint, 'file-' || $2::bigint::text, 0, 0, 'indexed', 0) ON CONFLICT DO NOTHING`,
    [repoId, fileId],
  );
  await db.query(
    `INSERT INTO ${s}.elements (repo_id, id, file_id, element_type, element_name, short_name, access, start_line, end_line,
       start_byte, end_byte, signature, description, document_hash)
     SELECT $1, id, $3, 'function', 'e' || id, 'e' || id, '', 1, 1, -1, -1, '', '', 'h' || id FROM unnest($2::bigint[]) AS id`,
    [repoId, [...ids], fileId],
  );
}

/** A schema as an older ocvector left it: the migrations up to `version` applied, and recorded. Returns it quoted. */
export async function schemaAt(db: Queryable, name: string, version: number): Promise<string> {
  const schema = quoteSchema(name);
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(
    `CREATE TABLE ${schema}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (let v = 1; v <= version; v++) {
    await db.query(POSTGRES_MIGRATIONS[v - 1]!(schema));
    await db.query(`INSERT INTO ${schema}.schema_version (version) VALUES (${v})`);
  }
  return schema;
}
