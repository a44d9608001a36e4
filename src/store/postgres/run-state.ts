/**
 * What a run of the PostgreSQL store takes first, in its transaction: the repository's lock
 * (a transaction-scoped advisory lock, so that it ends with the transaction, also when the
 * indexer dies and its connection closes) and the index's state row.
 */
import type pg from 'pg';
import { StoreError } from '../errors.js';
import type { EmbedderRecord } from '../meta.js';
import type { PostgresConnection } from './connection.js';
import type { LexicalWriter } from './lexical-writer.js';
import type { Queryable } from './serial.js';
import type { VectorWriter } from './vector-writer.js';

/** The index's state row. */
export interface State {
  generation: number;
  embedder: EmbedderRecord | undefined;
  embedderHost: string | undefined;
}

/** SQLSTATE of a lock wait that ran out (lock_timeout). */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Takes a repository's lock for the transaction (an advisory lock on the schema and the
 * repository's name, released by the commit, the rollback, or the connection's end): at once,
 * or waiting up to `waitMs`; StoreError LOCKED when another transaction holds it.
 */
export async function lockRepository(
  client: pg.PoolClient,
  connection: PostgresConnection,
  options: { repo: string; waitMs: number },
): Promise<void> {
  const key = [`ocvector ${connection.schema}`, options.repo];
  const busy = () =>
    new StoreError(
      `the repository ${options.repo} is being indexed by another run (another process or machine) in ${connection.location}: ` +
        'wait for it to finish, or pass --wait <seconds>',
      'LOCKED',
    );
  if (options.waitMs <= 0) {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS locked',
      key,
    );
    if (!rows[0]!.locked) throw busy();
    return;
  }
  // A lock wait that runs out fails the transaction, which the caller then rolls back whole.
  await client.query("SELECT set_config('lock_timeout', $1, true)", [`${Math.ceil(options.waitMs)}ms`]);
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', key);
  } catch (error) {
    if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) throw busy();
    throw error;
  }
  // Back to the server's (or the role's) own setting for the rest of the run.
  await client.query('SET LOCAL lock_timeout TO DEFAULT');
}

/** The store's state row: its generation and embedder. */
export async function readState(client: Queryable, s: string): Promise<State> {
  const { rows } = await client.query<{
    generation: number;
    embedder: string | null;
    dimension: number | null;
    embedder_host: string | null;
  }>(`SELECT generation, embedder, dimension, embedder_host FROM ${s}.state`);
  const row = rows[0]!;
  return {
    generation: row.generation,
    embedder:
      row.embedder !== null && row.dimension !== null ? { id: row.embedder, dimension: row.dimension } : undefined,
    embedderHost: row.embedder_host ?? undefined,
  };
}

/** Deletes a repository's files, elements, occurrences, lexical rows and vectors; its own row stays (a rebuild, or a drop's first step). */
export async function deleteRepositoryRows(
  client: Queryable,
  s: string,
  repoId: number,
  writers: { lexical: LexicalWriter; vectors: VectorWriter },
): Promise<void> {
  await writers.lexical.dropRepository(client, repoId);
  await writers.vectors.dropRepository(client, repoId);
  for (const table of ['occurrences', 'elements', 'files'])
    await client.query(`DELETE FROM ${s}.${table} WHERE repo_id = $1`, [repoId]);
}
