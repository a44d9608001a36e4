/**
 * Snippets are read from disk when a query is answered, not from the index,
 * so they show the code as it is now; a file whose content changed since it
 * was indexed is marked stale (its line numbers may have moved). Reads stay
 * inside the indexed root: a path whose real location lies outside it (a
 * symlink swapped in since indexing) is not read.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { dedent } from '../vector/snippet.js';

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
  lines?: string[];
}

/** Reads each file once per search and decides whether it is stale. */
export class SourceReader {
  readonly #root: string;
  readonly #realRoot: string;
  readonly #cache = new Map<string, SourceState>();

  constructor(root: string) {
    this.#root = root;
    try {
      this.#realRoot = realpathSync(root);
    } catch {
      this.#realRoot = root;
    }
  }

  /** Stale or not, without reading the file when its size and mtime still match. */
  state(file: IndexedFile, needText: boolean): SourceState {
    const cached = this.#cache.get(file.path);
    if (cached && (cached.lines || !needText || cached.problem)) return cached;
    const state = this.#read(file, needText);
    this.#cache.set(file.path, state);
    return state;
  }

  #read(file: IndexedFile, needText: boolean): SourceState {
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
    if (real !== this.#realRoot && !real.startsWith(this.#realRoot + sep)) return { stale: true, problem: 'the file now leads outside the indexed root' };
    const unchangedStat = size === file.size && mtimeMs === file.mtimeMs;
    if (unchangedStat && !needText) return { stale: false };
    if (size > MAX_SOURCE_BYTES) return { stale: true, problem: `the file has grown to ${size} bytes` };
    let bytes: Buffer;
    try {
      bytes = readFileSync(real);
    } catch (error) {
      return { stale: true, problem: `cannot read the file: ${(error as Error).message}` };
    }
    // The same hash as the indexer's: a touched but unchanged file is not stale.
    const stale = !unchangedStat && createHash('sha256').update(bytes).digest('hex').slice(0, 32) !== file.hash;
    return { stale, lines: bytes.toString('utf8').split('\n') };
  }
}

/** Lines start..end (1-based, inclusive), cut to the limits, with a count of what was left out. */
export function cutLines(lines: readonly string[], startLine: number, endLine: number, options: SnippetOptions = {}): string {
  const { maxLines, maxChars } = { ...DEFAULT_SNIPPET_OPTIONS, ...options };
  const start = Math.max(1, startLine);
  const end = Math.min(endLine, lines.length);
  const out: string[] = [];
  let chars = 0;
  let line = start;
  for (; line <= end && out.length < maxLines; line++) {
    let text = (lines[line - 1] ?? '').replace(/\r$/, '');
    if (chars + text.length > maxChars) {
      if (out.length > 0) break;
      text = `${text.slice(0, maxChars)} …`;
    }
    out.push(text);
    chars += text.length + 1;
  }
  const shown = dedent(out);
  const hidden = end - line + 1;
  if (hidden > 0) shown.push(`… (${hidden} more line${hidden === 1 ? '' : 's'})`);
  return shown.join('\n');
}
