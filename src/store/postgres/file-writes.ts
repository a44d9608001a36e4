/**
 * The statements a run's batch of file writes makes (run-writer.ts decides what to write, as the
 * embedded store's writeFile does): the files' rows, the lines of elements that moved, the rows
 * of new elements, and each file's words. One statement a table, whatever the batch's size, each
 * built before it runs (statement.ts), under ids reserved beforehand (reserveIds).
 */
import { deflateRawSync } from 'node:zlib';
import type { ElementPlan, PlacedElement } from '../element-plan.js';
import type { elementNames } from '../element-texts.js';
import type { FileWrite } from '../writes.js';
import { integerArray, textArray } from './array-literal.js';
import { termKey } from './lexical-terms.js';
import type { Queryable } from './serial.js';
import type { Statement } from './statement.js';

type Write = Extract<FileWrite, { kind: 'write' }>;

/**
 * zlib's fastest level: about a third of the default level's time for a little more room, on the
 * indexer's thread that also builds every statement (docs/postgres.md, "The figures behind the
 * constants"). The vectors take ten times the room either way.
 */
const DEFLATE = { level: 1 };

/**
 * Ids for new files and new elements, from their tables' own sequences, in one round trip. A
 * sequence stands outside transactions: another connection may reserve them while the run's
 * own runs the batch before, and the ids of a run that rolls back are never used again.
 */
export async function reserveIds(
  client: Queryable,
  s: string,
  count: { files: number; elements: number },
): Promise<{ files: number[]; elements: number[] }> {
  if (count.files === 0 && count.elements === 0) return { files: [], elements: [] };
  const next = (table: string, n: string) =>
    `ARRAY(SELECT nextval(pg_get_serial_sequence('${s}.${table}', 'id')) FROM generate_series(1, ${n}::integer) AS g ORDER BY g)`;
  const { rows } = await client.query<{ files: (number | string)[]; elements: (number | string)[] }>(
    `SELECT ${next('files', '$1')} AS files, ${next('elements', '$2')} AS elements`,
    [count.files, count.elements],
  );
  // bigint[] comes back as strings (only int8 itself is read as a number: connection.ts).
  return { files: rows[0]!.files.map(Number), elements: rows[0]!.elements.map(Number) };
}

/** Deletes a repository's rows of some files (`occurrences`, `files`: by file id) or elements (by id). */
export function deleteRows(
  s: string,
  table: 'occurrences' | 'files' | 'elements',
  repoId: number,
  ids: readonly number[],
): Statement {
  const column = table === 'occurrences' ? 'file_id' : 'id';
  return {
    text: `DELETE FROM ${s}.${table} WHERE repo_id = $1 AND ${column} = ANY($2::bigint[])`,
    values: [repoId, integerArray(ids)],
  };
}

/** Files whose content is unchanged under a new stat: only their size and mtime move. */
export function touchFiles(
  s: string,
  repoId: number,
  touches: readonly Extract<FileWrite, { kind: 'touch' }>[],
): Statement {
  return {
    text: `UPDATE ${s}.files f SET size = t.size, mtime_ms = t.mtime_ms
       FROM unnest($2::bigint[], $3::bigint[], $4::float8[]) AS t(id, size, mtime_ms)
       WHERE f.repo_id = $1 AND f.id = t.id`,
    values: [repoId, touches.map((w) => w.row.id), touches.map((w) => w.size), touches.map((w) => w.mtimeMs)],
  };
}

/**
 * The files' new states (the content deflated, as kept for a search without the checkout), each
 * under its id: its own for a file the repository holds, a reserved one for a new file.
 */
export function upsertFiles(
  s: string,
  repoId: number,
  writes: readonly Write[],
  ids: readonly number[],
  now: number,
): Statement {
  return {
    text: `INSERT INTO ${s}.files AS f (repo_id, id, path, language, size, mtime_ms, hash, status, error, element_count,
       indexed_at, content)
     SELECT $1, * FROM unnest($12::bigint[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::text[], $7::text[],
       $8::text[], $9::integer[], $10::bigint[], $11::bytea[])
     ON CONFLICT (repo_id, path) DO UPDATE SET language = excluded.language, size = excluded.size,
       mtime_ms = excluded.mtime_ms, hash = excluded.hash, status = excluded.status, error = excluded.error,
       element_count = excluded.element_count, indexed_at = excluded.indexed_at, content = excluded.content`,
    values: [
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
      writes.map((w) => (w.text === undefined ? null : deflateRawSync(Buffer.from(w.text, 'utf8'), DEFLATE))),
      integerArray(ids),
    ],
  };
}

/** Elements whose document is unchanged keep their row: only their lines and bytes move. */
export function moveElements(s: string, repoId: number, moved: readonly PlacedElement[]): Statement {
  return {
    text: `UPDATE ${s}.elements e SET start_line = m.start_line, end_line = m.end_line, start_byte = m.start_byte, end_byte = m.end_byte
     FROM unnest($2::bigint[], $3::integer[], $4::integer[], $5::integer[], $6::integer[])
       AS m(id, start_line, end_line, start_byte, end_byte)
     WHERE e.repo_id = $1 AND e.id = m.id`,
    values: [
      repoId,
      moved.map((m) => m.id),
      moved.map((m) => m.startLine),
      moved.map((m) => m.endLine),
      moved.map((m) => m.startByte),
      moved.map((m) => m.endByte),
    ],
  };
}

/** New elements' rows, under the ids given (in order), with their names as elementNames made them. */
export function insertElements(
  s: string,
  repoId: number,
  ids: readonly number[],
  added: readonly { fileId: number; plan: ElementPlan['added'][number] }[],
  names: readonly ReturnType<typeof elementNames>[],
): Statement {
  return {
    text: `INSERT INTO ${s}.elements (repo_id, id, file_id, element_type, element_name, short_name, access, start_line, end_line,
       start_byte, end_byte, signature, description, document_hash)
     SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
       $9::integer[], $10::integer[], $11::integer[], $12::text[], $13::text[], $14::text[])`,
    values: [
      repoId,
      integerArray(ids),
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
  };
}

/**
 * Each written file's words replace its old ones (a file written without them keeps none): the
 * old ones are deleted for the files the repository held before (`held`), then all are inserted.
 */
export function replaceOccurrences(
  s: string,
  repoId: number,
  writes: readonly Write[],
  fileIds: readonly number[],
  held: readonly number[],
): Statement[] {
  const statements: Statement[] = [];
  if (held.length > 0) statements.push(deleteRows(s, 'occurrences', repoId, held));
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
    statements.push({
      text: `INSERT INTO ${s}.occurrences (repo_id, file_id, word, lines)
       SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[])`,
      values: [repoId, integerArray(files), textArray(words), textArray(lines)],
    });
  return statements;
}
