/**
 * What `--status` and `--drop --repo` ask of the PostgreSQL store: its repositories with their
 * counts, its files' recorded states, its state, its size; and the removal of one repository
 * in one transaction under that repository's lock (searches see it whole, then gone).
 */
import type { EmbedderRecord, LastRun } from '../rows.js';
import type { Repository, RepositoryCounts } from '../rows.js';
import { badRepositoryName, isRepositoryName, unknownRepository } from '../repository-name.js';
import { StoreError } from '../errors.js';
import type { FileSummary } from '../rows.js';
import { PostgresConnection, DEFAULT_POSTGRES_SCHEMA } from './connection.js';
import { LexicalWriter } from './lexical-writer.js';
import { WriterLease } from './run-lease.js';
import { deleteRepositoryRows, readState } from './run-state.js';
import { VectorWriter } from './vector-writer.js';

export interface PostgresLocation {
  url: string;
  schema?: string | undefined;
}

/** What the store holds, as --status reports it (indexing/status.ts adds what the files on disk say). */
export interface PostgresContents {
  location: string;
  repositories: (RepositoryCounts & { lastRun: LastRun | null })[];
  files: FileSummary[];
  embedder: EmbedderRecord | undefined;
  embedderHost: string | undefined;
  generation: number;
  elements: number;
  /** Bytes of the schema's tables and indexes, and of its vectors' tables among them. */
  sizeBytes: { database: number; vectors: number };
}

/** The store's contents (read in one snapshot). */
export async function postgresContents(store: PostgresLocation): Promise<PostgresContents> {
  const connection = await connect(store);
  try {
    return await connection.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
      const s = connection.s;
      const state = await readState(client, s);
      const { rows: repositories } = await client.query<RepositoryCounts & { lastRun: LastRun | null }>(
        `SELECT r.id, r.name, r.root, r.git_commit AS "commit", r.indexed_at AS "indexedAt", r.last_run AS "lastRun",
           (SELECT count(*) FROM ${s}.files f WHERE f.repo_id = r.id AND f.status = 'indexed') AS files,
           (SELECT coalesce(sum(f.element_count), 0)::bigint FROM ${s}.files f WHERE f.repo_id = r.id) AS elements
         FROM ${s}.repositories r ORDER BY r.id`,
      );
      const { rows: files } = await client.query<FileSummary>(
        `SELECT path, language, size, mtime_ms AS "mtimeMs", hash, status, error, element_count AS elements, repo_id AS "rootId"
         FROM ${s}.files ORDER BY path COLLATE "C"`,
      );
      const { rows: sizes } = await client.query<{ total: number; vectors: number }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS total,
           coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relname LIKE 'element\\_vectors\\_%'), 0)::bigint AS vectors
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
        [connection.schema],
      );
      return {
        location: connection.location,
        repositories,
        files,
        embedder: state.embedder,
        embedderHost: state.embedderHost,
        generation: state.generation,
        elements: repositories.reduce((sum, repository) => sum + repository.elements, 0),
        sizeBytes: { database: sizes[0]!.total, vectors: sizes[0]!.vectors },
      };
    });
  } finally {
    await connection.close();
  }
}

/** The store's repositories, oldest first. */
export async function postgresRepositories(store: PostgresLocation): Promise<Repository[]> {
  const connection = await connect(store);
  try {
    const { rows } = await connection.pool.query<Repository>(
      `SELECT id, name, root, git_commit AS "commit", indexed_at AS "indexedAt" FROM ${connection.s}.repositories ORDER BY id`,
    );
    return rows;
  } finally {
    await connection.close();
  }
}

export interface DroppedPostgresRepository {
  location: string;
  repo: string;
  root: string;
  files: number;
  elements: number;
}

/** Removes one repository from the store: every row of it, in one transaction, under its lock. */
export async function dropPostgresRepository(
  store: PostgresLocation,
  name: string,
  options: { waitMs?: number } = {},
): Promise<DroppedPostgresRepository> {
  if (!isRepositoryName(name)) throw new StoreError(badRepositoryName(name), 'BAD_NAME');
  // Two connections: the lease's, and the drop's transaction.
  const connection = await connect(store, 2);
  try {
    const lease = await WriterLease.take(connection, { repo: name, waitMs: options.waitMs ?? 0 });
    return await connection
      .transaction('BEGIN', async (client) => {
        const s = connection.s;
        const { rows } = await client.query<{ id: number; root: string; files: number; elements: number }>(
          `SELECT r.id, r.root, (SELECT count(*) FROM ${s}.files f WHERE f.repo_id = r.id) AS files,
             (SELECT coalesce(sum(f.element_count), 0)::bigint FROM ${s}.files f WHERE f.repo_id = r.id) AS elements
           FROM ${s}.repositories r WHERE r.name = $1`,
          [name],
        );
        const repository = rows[0];
        if (!repository) throw unknownRepository(name, 'nothing was deleted');
        await deleteRepositoryRows(client, s, repository.id, {
          lexical: new LexicalWriter(connection.schema),
          vectors: new VectorWriter(connection.schema),
        });
        await client.query(`DELETE FROM ${s}.repositories WHERE id = $1`, [repository.id]);
        await lease.endIn(client);
        // Searches read the list of repositories again.
        await client.query(`UPDATE ${s}.state SET generation = generation + 1`);
        return {
          location: connection.location,
          repo: name,
          root: repository.root,
          files: repository.files,
          elements: repository.elements,
        };
      })
      .finally(() => lease.release());
  } finally {
    await connection.close();
  }
}

/** One connection to a store that exists (an administrator's command creates nothing). */
function connect(store: PostgresLocation, maxConnections = 1): Promise<PostgresConnection> {
  return PostgresConnection.open(store.url, {
    schema: store.schema ?? DEFAULT_POSTGRES_SCHEMA,
    maxConnections,
    migrate: false,
  });
}
