/**
 * The whole-file BM25 baseline at each commit of a moving work tree
 * (file-bm25.ts's scorer, this project's tokenisation), over the files with
 * a source-code extension, and the same without tests and build folders.
 * A file's terms are kept by blob id, so a commit costs the tokenising of
 * the files it changed and the building of the postings, not a re-read of
 * the tree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { terms } from '../../src/internal.js';
import { FileBm25 } from './file-bm25.js';
import { isCodeFile, isTestOrBuild } from './localise-set.js';
import type { TreeEntry } from './localise-worktree.js';

export type BaselineName = 'bm25' | 'bm25-source';

export const BASELINE_LABELS: Record<BaselineName, string> = {
  bm25: 'whole-file BM25 (code files)',
  'bm25-source': 'the same BM25 without test and build folders',
};

/** Files ranked per baseline (the rest of a ranking adds nothing to the scores, which look at 10). */
export const BASELINE_DEPTH = 100;

export class FileBaselines {
  /** blob id -> its terms */
  readonly #terms = new Map<string, string[]>();

  /**
   * Both baselines' rankings for `query` over the tree at `dir` whose entries
   * are `entries` (files the tree lacks are left out); the query is read whole.
   */
  rank(dir: string, entries: ReadonlyMap<string, TreeEntry>, query: string): Record<BaselineName, string[]> {
    const code: { path: string; blob: string }[] = [];
    for (const [path, entry] of entries) {
      if (entry.mode === '120000' || !isCodeFile(path)) continue;
      if (!this.#terms.has(entry.blob)) {
        let text: string;
        try {
          text = readFileSync(join(dir, path), 'utf8');
        } catch {
          continue; // a blob the mirror lacks: not in the tree
        }
        this.#terms.set(entry.blob, terms(text));
      }
      code.push({ path, blob: entry.blob });
    }
    const rankOver = (files: typeof code) =>
      new FileBm25(files.map((file) => ({ path: file.path, tokens: this.#terms.get(file.blob)! })))
        .rank(query)
        .slice(0, BASELINE_DEPTH)
        .map((hit) => hit.path);
    return {
      bm25: rankOver(code),
      'bm25-source': rankOver(code.filter((file) => !isTestOrBuild(file.path))),
    };
  }

  /** Forgets the terms of blobs no longer in `entries` (a long history would otherwise keep them all). */
  keepOnly(entries: ReadonlyMap<string, TreeEntry>): void {
    const live = new Set([...entries.values()].map((entry) => entry.blob));
    for (const blob of this.#terms.keys()) if (!live.has(blob)) this.#terms.delete(blob);
  }
}
