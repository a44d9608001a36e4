/**
 * Snippets are read from disk when a query is answered, not from the index,
 * so they show the code as it is now; a file whose content changed since it
 * was indexed is marked stale (its line numbers may have moved). Reads stay
 * inside the indexed root: a path whose real location lies outside it (a
 * symlink swapped in since indexing) is not read.
 */
import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { contentHash } from '../files/hash.js';
import { LineStarts } from '../files/line-starts.js';
import { dedent } from '../vector/snippet.js';
import { terms } from '../text/terms.js';

export interface SnippetOptions {
  /** Lines shown at most; the rest is counted. Default 30. */
  maxLines?: number;
  /** Characters shown at most. Default 4,000. */
  maxChars?: number;
}

export const DEFAULT_SNIPPET_OPTIONS: Required<SnippetOptions> = { maxLines: 30, maxChars: 4_000 };

/** Files larger than this are not read to show a snippet (the indexer never indexes them either). */
const MAX_SOURCE_BYTES = 16 * 1024 * 1024;

export interface IndexedFile {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string | null;
}

export interface SourceState {
  stale: boolean;
  /** Why there is no text: the file is gone, unreadable, outside the root, too large. */
  problem?: string;
  text?: SourceText;
}

/**
 * A file's bytes, or the bytes of some of its lines (from `firstLine`), cut
 * into lines on demand: showing lines 90,000 to 90,020 of a 9 MB file
 * decodes only those lines, instead of turning the whole file into strings.
 */
export class SourceText {
  readonly #bytes: Buffer;
  readonly #starts: LineStarts;
  readonly #firstLine: number;
  #hash: string | undefined;

  constructor(bytes: Buffer, firstLine = 1) {
    this.#bytes = bytes;
    this.#starts = new LineStarts(bytes);
    this.#firstLine = firstLine;
  }

  /** The indexer's content hash of these bytes, computed once (of the whole file when they are the whole file). */
  hash(): string {
    return (this.#hash ??= contentHash(this.#bytes));
  }

  /** Lines first..last (1-based, of the file, inclusive), cut where these bytes end. */
  lines(first: number, last: number): string[] {
    const bytes = this.#bytes;
    const offset = this.#firstLine - 1;
    const out: string[] = [];
    for (let line = Math.max(1 + offset, first) - offset; line <= last - offset; line++) {
      const from = this.#starts.start(line);
      if (from > bytes.length) break;
      out.push(bytes.toString('utf8', from, Math.min(this.#starts.start(line + 1) - 1, bytes.length)));
    }
    return out;
  }
}

/**
 * Files read for snippets, kept across searches (a long-lived Searcher asks
 * about the same files again and again) up to a byte budget, least recently
 * used first out. An entry is valid while the file's size and mtime match.
 */
export class SourceCache {
  readonly #entries = new Map<string, { size: number; mtimeMs: number; text: SourceText }>();
  readonly #budget: number;
  #bytes = 0;

  constructor(budgetBytes = 32 * 1024 * 1024) {
    this.#budget = budgetBytes;
  }

  get(path: string, size: number, mtimeMs: number): SourceText | undefined {
    const entry = this.#entries.get(path);
    if (!entry || entry.size !== size || entry.mtimeMs !== mtimeMs) return undefined;
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    return entry.text;
  }

  set(path: string, size: number, mtimeMs: number, text: SourceText): void {
    const old = this.#entries.get(path);
    if (old) this.#bytes -= old.size;
    this.#entries.set(path, { size, mtimeMs, text });
    this.#bytes += size;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#budget || key === path) break;
      this.#entries.delete(key);
      this.#bytes -= entry.size;
    }
  }
}

/** Where an element's lines lie in its file, as the index recorded them (bytes -1 when it did not). */
export interface ElementLines {
  startLine: number;
  startByte: number;
  endByte: number;
}

/** A file's state as the reader found it, with where the file really is when it could be located. */
interface CheckedState extends SourceState {
  real?: string;
}

/** An element's bytes larger than this are not read apart: the whole file is (and kept for the next search). */
const MAX_ELEMENT_READ_BYTES = 1024 * 1024;

/** Where a search reads the files it shows: the checkout on disk (SourceReader), or the text the store kept (StoredSources). */
export interface SourceStates {
  /** Whether the file is stale, and with `needText` its text (with `element`, maybe only that element's). */
  state(file: IndexedFile & { fileId: number }, needText: boolean, element?: ElementLines): SourceState;
}

/**
 * Files as the index keeps their text (the shared store does: a search from
 * a machine without the checkout still shows code). Never stale: the text
 * is the one that was indexed.
 */
export class StoredSources implements SourceStates {
  readonly #texts: ReadonlyMap<number, Buffer>;
  readonly #made = new Map<number, SourceText>();

  constructor(texts: ReadonlyMap<number, Buffer>) {
    this.#texts = texts;
  }

  state(file: { fileId: number }, needText: boolean): SourceState {
    if (!needText) return { stale: false };
    let text = this.#made.get(file.fileId);
    if (!text) {
      const bytes = this.#texts.get(file.fileId);
      if (!bytes)
        return { stale: false, problem: 'the index keeps no text of this file, and it is not checked out here' };
      this.#made.set(file.fileId, (text = new SourceText(bytes)));
    }
    return { stale: false, text };
  }
}

/** Decides, once per file per search, whether a file is stale, and reads it when a snippet is wanted. */
export class SourceReader implements SourceStates {
  readonly #root: string;
  readonly #realRoot: string;
  readonly #states = new Map<string, CheckedState>();
  readonly #cache: SourceCache;

  constructor(root: string, cache: SourceCache) {
    this.#root = root;
    this.#cache = cache;
    try {
      this.#realRoot = realpathSync(root);
    } catch {
      this.#realRoot = root;
    }
  }

  /**
   * Stale or not, without reading the file when its size and mtime still
   * match; with `element`, the text to cut that element's snippet from:
   * only its own bytes when the file is as indexed (a result in a 9 MB
   * bundle no longer reads the whole bundle), else the whole file.
   */
  state(file: IndexedFile, needText: boolean, element?: ElementLines): SourceState {
    if (needText && element) {
      // Located and checked once per file per search; the text comes with it when the file changed or is cached whole.
      const checked = this.#checked(file, false);
      if (checked.problem || checked.text) return checked;
      const own = this.#elementText(checked.real!, element);
      if (own) return own;
    }
    return this.#checked(file, needText);
  }

  /** The file's state, from this search's memory or read now. */
  #checked(file: IndexedFile, needText: boolean): CheckedState {
    const known = this.#states.get(file.path);
    if (known && (known.text || !needText || known.problem)) return known;
    const state = this.#read(file, needText);
    this.#states.set(file.path, state);
    return state;
  }

  /** An unchanged file's bytes of one element, when recorded and not too many (the whole file is cached instead). */
  #elementText(real: string, element: ElementLines): SourceState | undefined {
    const { startByte, endByte } = element;
    if (startByte < 0 || endByte < startByte || endByte - startByte > MAX_ELEMENT_READ_BYTES) return undefined;
    let fd: number | undefined;
    try {
      fd = openSync(real, 'r');
      const bytes = Buffer.allocUnsafe(endByte - startByte);
      const read = readSync(fd, bytes, 0, bytes.length, startByte);
      return { stale: false, text: new SourceText(bytes.subarray(0, read), element.startLine) };
    } catch {
      return undefined; // the whole file is tried next, and says what went wrong
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  #read(file: IndexedFile, needText: boolean): CheckedState {
    const absolute = join(this.#root, file.path);
    let real: string;
    let size: number;
    let mtimeMs: number;
    try {
      real = realpathSync(absolute);
      const info = statSync(real);
      if (!info.isFile()) return { stale: true, problem: 'no longer a file' };
      size = info.size;
      mtimeMs = info.mtimeMs;
    } catch {
      return { stale: true, problem: 'the file is gone' };
    }
    if (real !== this.#realRoot && !real.startsWith(this.#realRoot + sep))
      return { stale: true, problem: 'the file now leads outside the indexed root' };
    const unchangedStat = size === file.size && mtimeMs === file.mtimeMs;
    const cached = this.#cache.get(real, size, mtimeMs);
    if (unchangedStat && !needText) return cached ? { stale: false, text: cached, real } : { stale: false, real };
    if (size > MAX_SOURCE_BYTES) return { stale: true, problem: `the file has grown to ${size} bytes` };
    let text = cached;
    if (!text) {
      try {
        text = new SourceText(readFileSync(real));
      } catch (error) {
        return { stale: true, problem: `cannot read the file: ${(error as Error).message}` };
      }
      this.#cache.set(real, size, mtimeMs, text);
    }
    // The same hash as the indexer's: a touched but unchanged file is not stale.
    return { stale: !unchangedStat && text.hash() !== file.hash, text, real };
  }
}

/** Lines start..end (1-based, inclusive), cut to the limits, with a count of what was left out. */
export function snippetLines(
  source: SourceText | readonly string[],
  startLine: number,
  endLine: number,
  options: SnippetOptions = {},
): { text: string; moreLines: number } {
  const { maxLines, maxChars } = { ...DEFAULT_SNIPPET_OPTIONS, ...options };
  const start = Math.max(1, startLine);
  const wanted = Math.min(endLine, start + maxLines - 1);
  const available = source instanceof SourceText ? source.lines(start, wanted) : source.slice(start - 1, wanted);
  const lastLine =
    source instanceof SourceText
      ? available.length < wanted - start + 1
        ? start + available.length - 1
        : endLine
      : Math.min(endLine, source.length);
  const out: string[] = [];
  let chars = 0;
  for (const raw of available) {
    let text = raw.replace(/\r$/, '');
    if (chars + text.length > maxChars) {
      if (out.length > 0) break;
      text = `${text.slice(0, maxChars)} …`;
    }
    out.push(text);
    chars += text.length + 1;
  }
  const shown = dedent(out);
  return { text: shown.join('\n'), moreLines: Math.max(0, lastLine - (start + out.length - 1)) };
}

/** The same, with a line saying how many lines follow, for people and models reading the text alone. */
export function cutLines(
  source: SourceText | readonly string[],
  startLine: number,
  endLine: number,
  options: SnippetOptions = {},
): string {
  const { text, moreLines } = snippetLines(source, startLine, endLine, options);
  return withMoreLines(text, moreLines);
}

/** A snippet as text alone: with a last line saying how many lines follow, when some do. */
export function withMoreLines(text: string, moreLines = 0): string {
  return moreLines > 0 ? `${text}\n${moreLinesMarker(moreLines)}` : text;
}

/** `… (3 more lines)`: what a cut snippet ends with when shown as text. */
export function moreLinesMarker(count: number): string {
  return `… (${count} more line${count === 1 ? '' : 's'})`;
}

/**
 * Where a snippet of an element should start so that it shows the lines
 * that answer: the element's first line when it fits the snippet or its
 * opening lines match as well as any, else the start of the window of
 * `maxLines` lines holding the most of the query's terms (a chunk or a
 * long function matched deep inside).
 */
export function bestSnippetStart(
  source: SourceText,
  startLine: number,
  endLine: number,
  queryTerms: ReadonlySet<string>,
  options: SnippetOptions = {},
): number {
  const { maxLines } = { ...DEFAULT_SNIPPET_OPTIONS, ...options };
  if (endLine - startLine + 1 <= maxLines || queryTerms.size === 0) return startLine;
  // Long elements are read a bounded way: windows past this many lines are not looked at.
  const lines = source.lines(startLine, Math.min(endLine, startLine + 2_000));
  const hits = lines.map((line) => countTerms(line, queryTerms));
  let window = hits.slice(0, maxLines).reduce((sum, n) => sum + n, 0);
  let best = window;
  let bestAt = 0;
  for (let at = 1; at + maxLines <= hits.length; at++) {
    window += hits[at + maxLines - 1]! - hits[at - 1]!;
    if (window > best) [best, bestAt] = [window, at];
  }
  // The first window with the most ends at a matching line: starting two lines above its
  // first matching line instead keeps every match in view, with a little context.
  const firstHit = hits.findIndex((n, i) => i >= bestAt && n > 0);
  return startLine + Math.max(bestAt, firstHit - 2);
}

function countTerms(line: string, queryTerms: ReadonlySet<string>): number {
  let count = 0;
  for (const term of terms(line)) if (queryTerms.has(term)) count++;
  return count;
}
