/**
 * The innermost element around a line of a file, as both stores find it
 * (embedded/reference-reader.ts in SQLite by two index lookups, postgres/occurrence-reads.ts over the
 * file's elements in memory): the last element to start at or before the line when it reaches
 * the line, else that element's owners by name (a line of a doc comment between two members
 * belongs to their class); none at the top level of a file.
 */
import type { ElementRow } from './rows.js';

/** An element around a line: where it lies (lines and bytes) and what it is. */
export type EnclosingElement = Pick<
  ElementRow,
  'vectorId' | 'type' | 'name' | 'startLine' | 'endLine' | 'startByte' | 'endByte'
>;

/** Owners followed up from the element before a line at most (`A.B.c` -> `A.B` -> `A`). */
const MAX_OWNERS = 8;

export interface ElementLookups {
  /** The last element of the file to start at or before the line. */
  before(line: number): EnclosingElement | undefined;
  /** The first element of the file to start after the line. */
  after(line: number): EnclosingElement | undefined;
  /** An element of the file named `name` (qualified; `shortName` its last segment, lower case) spanning the line. */
  owner(shortName: string, name: string, line: number): EnclosingElement | undefined;
}

export function enclosingElement(line: number, lookups: ElementLookups): EnclosingElement | undefined {
  let element = lookups.before(line);
  for (let depth = 0; element && element.endLine < line && depth < MAX_OWNERS; depth++) {
    const dot = element.name.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const owner = element.name.slice(0, dot);
    element =
      lookups.owner(owner.slice(owner.lastIndexOf('.') + 1).toLowerCase(), owner, line) ??
      // The owner does not reach the line either: its own owner may.
      ({ ...element, name: owner, endLine: -1 } as EnclosingElement);
  }
  return element && element.endLine >= line ? element : undefined;
}

/**
 * The element a line is read with, where the line must count for one (a
 * name spelled only in a doc comment's example, `* new PointAdapter()`):
 * the innermost around it; else, at the top level, the element it
 * documents (the first to start after it: a doc comment sits above its
 * element); else the last before it (a comment at the end of a file).
 * Undefined only in a file of no elements.
 */
export function elementHoldingLine(line: number, lookups: ElementLookups): EnclosingElement | undefined {
  return enclosingElement(line, lookups) ?? lookups.after(line) ?? lookups.before(line);
}
