/**
 * The connection to a PostgreSQL store: a pool of the `pg` client, the checks that the server
 * can hold the store (PostgreSQL 15 or later, the pgvector extension), the schema's migrations,
 * and the translation of connection failures into one clear error. Both the writer of a run
 * (run-writer.ts) and the searches (search-store.ts) go through it.
 */
import pg from 'pg';
import { StoreError } from '../errors.js';
import { withoutPassword } from '../location.js';
import { migratePostgres, POSTGRES_SCHEMA_VERSION, postgresSchemaVersion, quoteSchema } from './schema.js';
import { transactionOn } from './transaction.js';

export { DEFAULT_POSTGRES_SCHEMA } from './schema.js';

/** The oldest PostgreSQL the store runs on (server_version_num). */
const MIN_SERVER_VERSION = 150_000;
/** Connections a store opens at most. */
const DEFAULT_MAX_CONNECTIONS = 8;
/** How long a connection may take to open before the store says the server cannot be reached. */
const CONNECT_TIMEOUT_MS = 10_000;

/** int8 (counts, ids from sequences) read as numbers: every id the store makes fits in a double. */
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format as 'text')) as never,
};

export interface PostgresConnectionOptions {
  /** The schema the store lives in (default DEFAULT_POSTGRES_SCHEMA). */
  schema: string;
  /** Connections at most (default 8). */
  maxConnections?: number | undefined;
}

export class PostgresConnection {
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The schema's name quoted for SQL text. */
  readonly s: string;
  /** The URL without its password: what messages name. */
  readonly location: string;
  #closed = false;

  private constructor(pool: pg.Pool, schema: string, location: string) {
    this.pool = pool;
    this.schema = schema;
    this.s = quoteSchema(schema);
    this.location = location;
  }

  /**
   * Opens a pool and checks the server: PostgreSQL 15 or later with pgvector. `migrate` (a
   * writer) creates the schema or brings it up to date; a reader needs it at this version.
   */
  static async open(
    url: string,
    options: PostgresConnectionOptions & { migrate: boolean },
  ): Promise<PostgresConnection> {
    quoteSchema(options.schema);
    const location = `${withoutPassword(url)} (schema ${options.schema})`;
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: 'ocvector',
      types,
    });
    // A connection that breaks while idle (the server restarts) is dropped from the pool; the next
    // query opens another. Without a listener the pool's 'error' would end the process.
    pool.on('error', () => {});
    // The same for a connection that breaks while checked out, between two queries: the next query
    // on it fails, and says so (failure()); the event itself must not end the process.
    pool.on('connect', (client) => client.on('error', () => {}));
    const connection = new PostgresConnection(pool, options.schema, location);
    try {
      await connection.#check(options.migrate);
      return connection;
    } catch (error) {
      await pool.end().catch(() => {});
      throw connection.failure(error);
    }
  }

  async #check(migrate: boolean): Promise<void> {
    const { rows } = await this.pool.query<{ version: number; vector: boolean }>(
      `SELECT current_setting('server_version_num')::int AS version,
         EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS vector`,
    );
    const { version, vector } = rows[0]!;
    if (version < MIN_SERVER_VERSION)
      throw new StoreError(
        `the PostgreSQL at ${this.location} is version ${Math.floor(version / 10_000)}: the store needs PostgreSQL 15 or later`,
        'UNSUPPORTED',
      );
    if (!vector)
      throw new StoreError(
        `the PostgreSQL at ${this.location} has no pgvector extension: install it (the package postgresql-<version>-pgvector, or https://github.com/pgvector/pgvector), then index again`,
        'UNSUPPORTED',
      );
    if (migrate) {
      await migratePostgres(this.pool, this.schema);
      return;
    }
    const found = await postgresSchemaVersion(this.pool, this.schema);
    if (found === 0)
      throw new StoreError(`the PostgreSQL store at ${this.location} is empty: run oc-vector-index first`, 'NOT_FOUND');
    if (found > POSTGRES_SCHEMA_VERSION)
      throw new StoreError(
        `the PostgreSQL store at ${this.location} was written by a newer ocvector (schema ${found}, this one knows ${POSTGRES_SCHEMA_VERSION}): upgrade ocvector`,
        'NEWER_SCHEMA',
      );
    if (found < POSTGRES_SCHEMA_VERSION)
      throw new StoreError(
        `the PostgreSQL store at ${this.location} is at schema ${found}, this ocvector reads ${POSTGRES_SCHEMA_VERSION}: run oc-vector-index once to bring it up to date`,
        'OLDER_SCHEMA',
      );
  }

  /** Runs work on a client of its own, released after (destroyed when the connection broke). */
  async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failure(error);
    }
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (isConnectionFailure(error)) broken = error as Error;
      throw this.failure(error);
    } finally {
      client.release(broken);
    }
  }

  /** Runs work in one transaction on a client of its own: begun with `begin`, committed, or rolled back on an error. */
  transaction<T>(begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient((client) => transactionOn(client, begin, () => work(client)));
  }

  /**
   * An error as the store reports it: a connection that cannot be made or that broke becomes a
   * StoreError UNREACHABLE naming the server; the store's own errors and others pass as they are.
   */
  failure(error: unknown): unknown {
    if (error instanceof StoreError || !isConnectionFailure(error)) return error;
    const reason = (error as Error).message || String((error as { code?: string }).code ?? error);
    return new StoreError(`cannot reach the PostgreSQL store at ${this.location}: ${reason}`, 'UNREACHABLE', {
      cause: error,
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}

/** SQLSTATE classes and node error codes that mean the server is away, refused us, or dropped the connection. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  '28000', // invalid authorization
  '28P01', // wrong password
  '3D000', // no such database
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now
]);

/** Whether an error says the connection could not be made or broke (not that a statement failed). */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    error.message,
  );
}
