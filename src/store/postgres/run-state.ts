/**
 * What a run of the PostgreSQL store reads first (after its lease: run-lease.ts), the index's
 * state row and the repository's files and elements, and what a rebuild or a drop deletes.
 */
import type { PlacedElement } from '../element-plan.js';
import type { EmbedderRecord, FileRow } from '../rows.js';
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

/** A repository's files by path, and each file's elements (by id) by the file's id. */
export async function readRepository(
  client: Queryable,
  s: string,
  repoId: number,
): Promise<{ files: Map<string, FileRow>; elements: Map<number, PlacedElement[]> }> {
  const { rows: files } = await client.query<FileRow>(
    `SELECT id, path, language, size, mtime_ms AS "mtimeMs", hash, status, error, element_count AS "elementCount"
     FROM ${s}.files WHERE repo_id = $1`,
    [repoId],
  );
  const { rows } = await client.query<PlacedElement & { fileId: number }>(
    `SELECT id, file_id AS "fileId", document_hash AS hash, start_line AS "startLine", end_line AS "endLine",
       start_byte AS "startByte", end_byte AS "endByte"
     FROM ${s}.elements WHERE repo_id = $1 ORDER BY id`,
    [repoId],
  );
  const elements = new Map<number, PlacedElement[]>();
  for (const { fileId, ...element } of rows) {
    const list = elements.get(fileId);
    if (list) list.push(element);
    else elements.set(fileId, [element]);
  }
  return { files: new Map(files.map((row) => [row.path, row])), elements };
}

/** The names of the store's repositories other than `name`, oldest first. */
export async function otherRepositoryNames(client: Queryable, s: string, name: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT name FROM ${s}.repositories WHERE name <> $1 ORDER BY id`,
    [name],
  );
  return rows.map((row) => row.name);
}

/** A repository's files and elements in the store now. */
export async function repositoryCounts(
  client: Queryable,
  s: string,
  repoId: number,
): Promise<{ files: number; elements: number }> {
  const { rows } = await client.query<{ files: number; elements: number }>(
    `SELECT count(*) AS files, coalesce(sum(element_count), 0)::bigint AS elements FROM ${s}.files WHERE repo_id = $1`,
    [repoId],
  );
  return rows[0]!;
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
