/**
 * "Where is X used?" in PostgreSQL (../reads.ts's OccurrenceReads): the files a word occurs in,
 * and the element around each line listed, found over the file's elements read at once (one
 * read per file, not two lookups per line as SQLite's ../embedded/reference-reader.ts makes), by the same
 * rule (../enclosing.ts).
 */
import { termKey } from './lexical-terms.js';
import type { Queryable } from './serial.js';
import { elementHoldingLine, enclosingElement, type ElementLookups, type EnclosingElement } from '../enclosing.js';
import type { OccurrenceReads } from '../reads.js';
import type { OccurrenceFile } from '../rows.js';

interface ElementLine extends EnclosingElement {
  shortName: string;
}

export class PostgresOccurrences implements OccurrenceReads {
  readonly #db: Queryable;
  readonly #s: string;
  /** Every repository of the snapshot: what `files` reads when no scope is given. */
  readonly #all: readonly number[];

  constructor(db: Queryable, s: string, all: readonly number[]) {
    this.#db = db;
    this.#s = s;
    this.#all = all;
  }

  async files(word: string, roots: readonly number[] | undefined): Promise<OccurrenceFile[]> {
    const { rows } = await this.#db.query<OccurrenceFile>(
      `SELECT o.file_id AS "fileId", f.repo_id AS "rootId", f.path, f.size, f.mtime_ms AS "mtimeMs", f.hash, o.lines
       FROM ${this.#s}.occurrences o JOIN ${this.#s}.files f ON f.repo_id = o.repo_id AND f.id = o.file_id
       WHERE o.repo_id = ANY($1::integer[]) AND o.word = $2
       ORDER BY f.path COLLATE "C", f.id`,
      [[...(roots ?? this.#all)], termKey(word)],
    );
    return rows;
  }

  async around(
    file: { fileId: number; rootId: number },
    lines: readonly number[],
  ): Promise<(EnclosingElement | undefined)[]> {
    return this.#eachLine(file, lines, enclosingElement);
  }

  async holding(
    file: { fileId: number; rootId: number },
    lines: readonly number[],
  ): Promise<(EnclosingElement | undefined)[]> {
    return this.#eachLine(file, lines, elementHoldingLine);
  }

  /** `pick` for each line, over the file's elements read once. */
  async #eachLine(
    file: { fileId: number; rootId: number },
    lines: readonly number[],
    pick: (line: number, lookups: ElementLookups) => EnclosingElement | undefined,
  ): Promise<(EnclosingElement | undefined)[]> {
    if (lines.length === 0) return [];
    const lookups = await this.#lookups(file);
    return lines.map((line) => pick(line, lookups));
  }

  /** The file's elements, read at once, as the lookups of ../enclosing.ts. */
  async #lookups(file: { fileId: number; rootId: number }): Promise<ElementLookups> {
    const { rows } = await this.#db.query<ElementLine>(
      `SELECT id AS "vectorId", element_type AS type, element_name AS name, short_name AS "shortName",
         start_line AS "startLine", end_line AS "endLine", start_byte AS "startByte", end_byte AS "endByte"
       FROM ${this.#s}.elements WHERE repo_id = $1 AND file_id = $2 ORDER BY start_line, id`,
      [file.rootId, file.fileId],
    );
    return {
      // The last to start at or before the line (of equal starts, the last written, as SQLite's index walk gives).
      before: (at) => lastStartingBy(rows, at),
      after: (at) => rows[startingBy(rows, at)],
      owner: (shortName, name, at) =>
        rows.find((e) => e.shortName === shortName && e.name === name && e.startLine <= at && e.endLine >= at),
    };
  }
}

/** The last of `rows` (by start line, then id) to start at or before `line`. */
function lastStartingBy(rows: readonly ElementLine[], line: number): ElementLine | undefined {
  const past = startingBy(rows, line);
  return past > 0 ? rows[past - 1] : undefined;
}

/** How many of `rows` (by start line) start at or before `line`: the index of the first to start after it. */
function startingBy(rows: readonly ElementLine[], line: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (rows[middle]!.startLine <= line) low = middle + 1;
    else high = middle;
  }
  return low;
}
