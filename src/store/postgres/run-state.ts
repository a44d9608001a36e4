/**
 * What a run of the PostgreSQL store reads first (after its lease: run-lease.ts), the index's
 * state row, and what a rebuild or a drop deletes.
 */
import type { EmbedderRecord } from '../rows.js';
import type { LexicalWriter } from './lexical-writer.js';
import type { Queryable } from './serial.js';
import type { VectorWriter } from './vector-writer.js';

/** The index's state row. */
export interface State {
  generation: number;
  embedder: EmbedderRecord | undefined;
  embedderHost: string | undefined;
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
