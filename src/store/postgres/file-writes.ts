/**
 * The statements a run's batch of file writes makes (run-writer.ts decides what to write, as the
 * embedded store's writeFile does): the files' rows, the lines of elements that moved, the rows
 * of new elements, and each file's words. One statement a table, whatever the batch's size.
 */
import { deflateRawSync } from 'node:zlib';
import type { ElementPlan, PlacedElement } from '../element-plan.js';
import type { elementNames } from '../element-texts.js';
import type { FileWrite } from '../writes.js';
import { integerArray, textArray } from './array-literal.js';
import { termKey } from './lexical-terms.js';
import type { Queryable } from './serial.js';

type Write = Extract<FileWrite, { kind: 'write' }>;

/** The files' new states (the content deflated, as kept for a search without the checkout); their ids by path. */
export async function upsertFiles(
  client: Queryable,
  s: string,
  repoId: number,
  writes: readonly Write[],
  now: number,
): Promise<{ id: number; path: string }[]> {
  const { rows } = await client.query<{ id: number; path: string }>(
    `INSERT INTO ${s}.files AS f (repo_id, path, language, size, mtime_ms, hash, status, error, element_count, indexed_at, content)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::float8[], $6::text[], $7::text[], $8::text[],
       $9::integer[], $10::bigint[], $11::bytea[])
     ON CONFLICT (repo_id, path) DO UPDATE SET language = excluded.language, size = excluded.size,
       mtime_ms = excluded.mtime_ms, hash = excluded.hash, status = excluded.status, error = excluded.error,
       element_count = excluded.element_count, indexed_at = excluded.indexed_at, content = excluded.content
     RETURNING id, path`,
    [
      repoId,
      writes.map((w) => w.update.path),
      writes.map((w) => w.update.language),
      writes.map((w) => w.update.size),
      writes.map((w) => w.update.mtimeMs),
      writes.map((w) => w.update.hash),
      writes.map((w) => w.update.status),
      writes.map((w) => w.update.error),
      writes.map((w) => w.documents.length),
      writes.map(() => now),
      writes.map((w) => (w.text === undefined ? null : deflateRawSync(Buffer.from(w.text, 'utf8')))),
    ],
  );
  return rows;
}

/** Ids for new elements, from the table's own sequence (in order: the rows are written in that order). */
export async function newElementIds(client: Queryable, s: string, count: number): Promise<number[]> {
  const { rows } = await client.query<{ id: number }>(
    `SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id FROM generate_series(1, $2)`,
    [`${s}.elements`, count],
  );
  return rows.map((row) => row.id);
}

/** Elements whose document is unchanged keep their row: only their lines and bytes move. */
export async function moveElements(
  client: Queryable,
  s: string,
  repoId: number,
  moved: readonly PlacedElement[],
): Promise<void> {
  if (moved.length === 0) return;
  await client.query(
    `UPDATE ${s}.elements e SET start_line = m.start_line, end_line = m.end_line, start_byte = m.start_byte, end_byte = m.end_byte
     FROM unnest($2::bigint[], $3::integer[], $4::integer[], $5::integer[], $6::integer[])
       AS m(id, start_line, end_line, start_byte, end_byte)
     WHERE e.repo_id = $1 AND e.id = m.id`,
    [
      repoId,
      moved.map((m) => m.id),
      moved.map((m) => m.startLine),
      moved.map((m) => m.endLine),
      moved.map((m) => m.startByte),
      moved.map((m) => m.endByte),
    ],
  );
}

/** New elements' rows, under the ids given (in order), with their names as elementNames made them. */
export async function insertElements(
  client: Queryable,
  s: string,
  repoId: number,
  ids: readonly number[],
  added: readonly { fileId: number; plan: ElementPlan['added'][number] }[],
  names: readonly ReturnType<typeof elementNames>[],
): Promise<void> {
  await client.query(
    `INSERT INTO ${s}.elements (repo_id, id, file_id, element_type, element_name, short_name, access, start_line, end_line,
       start_byte, end_byte, signature, description, document_hash)
     SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
       $9::integer[], $10::integer[], $11::integer[], $12::text[], $13::text[], $14::text[])`,
    [
      repoId,
      ids,
      added.map((a) => a.fileId),
      added.map((a) => a.plan.document.element.type),
      names.map((n) => n.name),
      names.map((n) => n.shortName),
      added.map((a) => a.plan.document.element.access),
      added.map((a) => a.plan.document.element.startLine),
      added.map((a) => a.plan.document.element.endLine),
      added.map((a) => a.plan.bytes.start),
      added.map((a) => a.plan.bytes.end),
      added.map((a) => a.plan.document.element.signature),
      added.map((a) => a.plan.document.element.description),
      added.map((a) => a.plan.document.hash),
    ],
  );
}

/** Each written file's words replace its old ones (a file written without them keeps none). */
export async function replaceOccurrences(
  client: Queryable,
  s: string,
  repoId: number,
  writes: readonly Write[],
  idOf: ReadonlyMap<string, number>,
): Promise<void> {
  const fileIds = writes.map((w) => idOf.get(w.update.path)!);
  await client.query(`DELETE FROM ${s}.occurrences WHERE repo_id = $1 AND file_id = ANY($2::bigint[])`, [
    repoId,
    fileIds,
  ]);
  const files: number[] = [];
  const words: string[] = [];
  const lines: string[] = [];
  writes.forEach((w, i) => {
    for (const [word, at] of w.occurrences ?? []) {
      files.push(fileIds[i]!);
      // A word too long for a B-tree key (a minified bundle's) is keyed by its hash, as a lexical term is.
      words.push(termKey(word));
      lines.push(at);
    }
  });
  if (words.length > 0)
    await client.query(
      `INSERT INTO ${s}.occurrences (repo_id, file_id, word, lines)
       SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[])`,
      [repoId, integerArray(files), textArray(words), textArray(lines)],
    );
}
