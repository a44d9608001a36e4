/**
 * Every line of a file is searchable. The syntax tree gives elements, but
 * a file also holds code outside them (imports and exports, top-level
 * statements, `res.send = function …`, a module's doc comment), and some
 * files hold nothing else (an `index.ts` of re-exports, a script). Those
 * lines become `chunk` elements of their own, so that no indexed file is
 * absent from search.
 *
 * Each line's words go to the lexical index once, with the innermost
 * element that holds the line: a method's body with the method, a class's
 * header and fields with the class, the rest with its chunk. A long
 * container therefore does not match every word of its members (they are
 * found, and shown, as themselves).
 */
import { basename } from 'node:path';
import { newElement } from '../analysis/element.js';
import type { CodeElement, CodeFile } from '../analysis/types.js';

export interface ChunkLimits {
  /** Lines per chunk at most. */
  maxLines: number;
  /** Characters per chunk at most (a chunk ends at the line that passes it). */
  maxChars: number;
}

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxLines: 40, maxChars: 2_000 };

export interface CoveredElement {
  element: CodeElement;
  /** The lines (1-based) whose words this element holds in the lexical index, as text. */
  ownText: string;
}

/**
 * The file's elements, followed by chunks over the code lines no element
 * holds, each with the text it contributes to the lexical index. Text
 * splitters (windows, sections, config documents) already cover their
 * files: their elements own their whole range.
 */
export function coverFile(
  file: CodeFile,
  lines: readonly string[],
  limits: ChunkLimits = DEFAULT_CHUNK_LIMITS,
): CoveredElement[] {
  if (file.source === 'text')
    return file.elements.map((element) => ({ element, ownText: slice(lines, element.startLine, element.endLine) }));
  const owner = innermostOwners(file.elements, lines.length);
  skipCommentsAbove(file.elements, lines, owner);
  const own: string[][] = file.elements.map(() => []);
  const uncovered: number[] = [];
  for (let line = 1; line <= lines.length; line++) {
    const at = owner[line]!;
    const text = lines[line - 1]!;
    if (at >= 0) own[at]!.push(text);
    else if (at !== SKIPPED && text.trim() !== '') uncovered.push(line);
  }
  const covered = file.elements.map((element, i) => ({ element, ownText: own[i]!.join('\n') }));
  // Not Math.min(...lines): a generated file may hold more elements than a call takes arguments.
  const firstElement = file.elements.reduce(
    (first, element) => Math.min(first, element.startLine),
    Number.POSITIVE_INFINITY,
  );
  for (const [start, end] of chunkRuns(uncovered, lines, limits)) {
    // Named after the file alone: a name with line numbers would change, and re-embed the chunk, whenever code above it moves.
    const element = newElement({
      type: 'chunk',
      name: basename(file.path),
      parent: '',
      access: 'public',
      startLine: start,
      endLine: end,
      signature: '',
    });
    // The file's own summary (a module docstring, Rust's `//!`, an opening comment) is read there: it describes the file.
    if (covered.length === file.elements.length && start < firstElement) element.description = file.summary;
    covered.push({ element, ownText: slice(lines, start, end) });
  }
  return covered;
}

/** A line that is only a comment (or part of a block comment), in any of the parsed languages. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*|#(?![[!]|include|define|if|endif|else|pragma|import)|--|;;)/;
/** Marks lines left out of the lexical index: the element's description already holds them. */
const SKIPPED = -2;

/**
 * The comment right above an element (no blank line between) is its doc
 * comment: the element's description holds its prose, so it makes no
 * chunk of its own (and an edit above it re-embeds nothing).
 */
function skipCommentsAbove(elements: readonly CodeElement[], lines: readonly string[], owner: Int32Array): void {
  for (const element of elements) {
    for (
      let line = element.startLine - 1;
      line >= 1 && owner[line] === -1 && COMMENT_LINE.test(lines[line - 1]!);
      line--
    )
      owner[line] = SKIPPED;
  }
}

/** For each line (1-based; index 0 unused), the index of the smallest element holding it, or -1. */
function innermostOwners(elements: readonly CodeElement[], lineCount: number): Int32Array {
  const owner = new Int32Array(lineCount + 1).fill(-1);
  const span = (i: number) => elements[i]!.endLine - elements[i]!.startLine;
  // Largest first, so that smaller (inner) elements overwrite their containers' lines.
  const order = elements.map((_, i) => i).sort((a, b) => span(b) - span(a) || a - b);
  for (const i of order) {
    const { startLine, endLine } = elements[i]!;
    for (let line = Math.max(1, startLine); line <= Math.min(lineCount, endLine); line++) owner[line] = i;
  }
  return owner;
}

/**
 * Uncovered lines grouped into chunks: runs of them (blank lines do not
 * break a run, an element does), each cut by the limits, at a blank line
 * when one lies in the second half of the piece.
 */
function chunkRuns(uncovered: readonly number[], lines: readonly string[], limits: ChunkLimits): [number, number][] {
  const runs: number[][] = [];
  for (const line of uncovered) {
    const run = runs.at(-1);
    if (run && onlyBlankBetween(lines, run.at(-1)!, line)) run.push(line);
    else runs.push([line]);
  }
  return runs.flatMap((run) => splitRun(run, lines, limits));
}

function splitRun(run: readonly number[], lines: readonly string[], limits: ChunkLimits): [number, number][] {
  const pieces: [number, number][] = [];
  let i = 0;
  while (i < run.length) {
    const start = run[i]!;
    let next = i;
    let chars = 0;
    let lastBeforeGap = -1;
    while (next < run.length && run[next]! - start < limits.maxLines && (next === i || chars < limits.maxChars)) {
      chars += lines[run[next]! - 1]!.length + 1;
      if (next + 1 < run.length && run[next + 1]! > run[next]! + 1) lastBeforeGap = next;
      next++;
    }
    if (next < run.length && lastBeforeGap >= i && lastBeforeGap - i + 1 >= (next - i) / 2) next = lastBeforeGap + 1;
    pieces.push([start, run[next - 1]!]);
    i = next;
  }
  return pieces;
}

function onlyBlankBetween(lines: readonly string[], from: number, to: number): boolean {
  for (let line = from + 1; line < to; line++) if (lines[line - 1]!.trim() !== '') return false;
  return true;
}

function slice(lines: readonly string[], startLine: number, endLine: number): string {
  return lines.slice(Math.max(0, startLine - 1), Math.max(0, endLine)).join('\n');
}
