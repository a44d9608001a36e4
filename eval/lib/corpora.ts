/**
 * The corpora the evaluation sets are made from, and how a corpus is laid
 * out for indexing: its files copied under a fresh root, with the doc
 * comments the queries came from blanked (held out), so that a search
 * cannot simply find the sentence it was asked; it has to find the code.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeText, qualifiedName } from '../../src/internal.js';
import { git, layOutSnapshot, resolveCommit } from './commit-history.js';
import type { EvalQuery, ExpectedElement } from '../../src/internal.js';

/** The repository. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Corpus {
  name: string;
  /** What it is, for the READMEs and the tables. */
  title: string;
  /** The directory the files come from. */
  source: string;
  /** Where they go under the prepared root (root-relative prefix, '' for the top). */
  prefix: string;
  include: (file: string) => boolean;
  /** The version of the source the set was built from. */
  version: () => string;
  /**
   * Where `source` sits in this repository's git history. A set of such a corpus records the
   * commit it was built from (its source.json's `commit`) and is laid out from that commit's
   * tree: the code's later changes neither lose its answers nor move its figures, which a
   * search change should move alone. Without that history (a shallow clone), the live files.
   */
  gitPath?: string;
}

export const CORPORA: Record<string, Corpus> = {
  ocvector: {
    name: 'ocvector',
    title: "this repository's src/",
    source: join(ROOT, 'src'),
    prefix: 'src',
    gitPath: 'src',
    include: (file) => file.endsWith('.ts'),
    version: () =>
      `ocvector ${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}${srcCommit()}`,
  },
  'typescript-lib': {
    name: 'typescript-lib',
    title: "the TypeScript compiler's lib/ (node_modules/typescript/lib)",
    source: join(ROOT, 'node_modules/typescript/lib'),
    prefix: '',
    include: (file) => !file.includes(sep) && /\.(d\.ts|js)$/.test(file),
    version: () =>
      `typescript ${(JSON.parse(readFileSync(join(ROOT, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version}`,
  },
};

export const SETS_DIR = join(ROOT, 'eval/sets');

/** The last commit that changed src/ (the package version alone does not move as the code does); empty outside a git checkout. */
function srcCommit(): string {
  const commit = lastCommitOf('src');
  return commit ? `, src/ as of commit ${commit.slice(0, 7)}` : '';
}

/** This repository's git directory; undefined outside a git checkout. */
function gitDirHere(): string | undefined {
  try {
    return execFileSync('git', ['-C', ROOT, 'rev-parse', '--absolute-git-dir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** The last commit that changed `path` in this repository, in full; undefined outside a git checkout. */
export function lastCommitOf(path: string): string | undefined {
  const gitDir = gitDirHere();
  return (gitDir && git(gitDir, ['log', '-1', '--format=%H', '--', path]).toString('utf8').trim()) || undefined;
}

/** The corpus's files, relative to `source` (by default its live source), sorted. */
export function corpusFiles(corpus: Corpus, source = corpus.source): string[] {
  return (readdirSync(source, { recursive: true }) as string[]).filter(corpus.include).sort();
}

/**
 * Where a set's corpus is laid out from: its commit (source.json's `commit`) in this
 * repository's git directory, when the corpus is in the history and the commit is there.
 */
function pinnedSnapshot(corpus: Corpus): { gitDir: string; commit: string } | undefined {
  if (corpus.gitPath === undefined) return undefined;
  const file = join(SETS_DIR, corpus.name, 'source.json');
  const gitDir = gitDirHere();
  if (!gitDir || !existsSync(file)) return undefined;
  const { commit } = JSON.parse(readFileSync(file, 'utf8')) as { commit?: string };
  if (!commit) return undefined;
  try {
    return { gitDir, commit: resolveCommit(gitDir, commit) };
  } catch {
    return undefined; // a shallow clone: the commit is not here
  }
}

/** The root-relative path of a corpus file (forward slashes). */
export function rootPath(corpus: Corpus, file: string): string {
  return posix.join(corpus.prefix, file.split(sep).join('/'));
}

export interface Prepared {
  root: string;
  /** The commit the corpus was laid out from (Corpus.gitPath), or undefined: its live files. */
  commit: string | undefined;
  /** Doc comments blanked, and expected elements the corpus no longer has (the set is older than the code). */
  heldOut: number;
  missing: string[];
}

/**
 * Copies the corpus under `root` and blanks the doc comment above every
 * element a query expects (same line count, so line numbers stay true).
 */
export function prepareCorpus(corpus: Corpus, queries: readonly EvalQuery[], root: string): Prepared {
  const pinned = pinnedSnapshot(corpus);
  if (!pinned) return { ...copyHeldOut(corpus, corpus.source, queries, root), commit: undefined };
  const checkedOut = mkdtempSync(join(tmpdir(), `ocvector-corpus-${corpus.name}-`));
  try {
    layOutSnapshot(pinned.gitDir, pinned.commit, checkedOut, [corpus.gitPath!]);
    return { ...copyHeldOut(corpus, join(checkedOut, corpus.gitPath!), queries, root), commit: pinned.commit };
  } finally {
    rmSync(checkedOut, { recursive: true, force: true });
  }
}

/** The corpus's files under `root`, from `source`, with the doc comments above the expected elements blanked. */
function copyHeldOut(
  corpus: Corpus,
  source: string,
  queries: readonly EvalQuery[],
  root: string,
): Omit<Prepared, 'commit'> {
  const byPath = new Map<string, ExpectedElement[]>();
  for (const query of queries) {
    for (const element of query.expected_elements ?? [])
      byPath.set(element.path, [...(byPath.get(element.path) ?? []), element]);
  }
  let heldOut = 0;
  const missing: string[] = [];
  for (const file of corpusFiles(corpus, source)) {
    const path = rootPath(corpus, file);
    const target = join(root, ...path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    const expected = byPath.get(path);
    if (!expected) {
      cpSync(join(source, file), target);
      continue;
    }
    const lines = readFileSync(join(source, file), 'utf8').split('\n');
    const elements = analyzeText(path, lines.join('\n')).elements;
    for (const wanted of expected) {
      const matching = elements.filter(
        (element) =>
          (wanted.name === undefined || qualifiedName(element) === wanted.name) &&
          (wanted.start_line === undefined ||
            wanted.end_line === undefined ||
            (element.startLine <= wanted.end_line && element.endLine >= wanted.start_line)),
      );
      if (matching.length === 0)
        missing.push(`${path} ${wanted.name ?? `lines ${wanted.start_line}-${wanted.end_line}`}`);
      for (const element of matching) heldOut += blankCommentAbove(lines, element.startLine);
    }
    writeFileSync(target, lines.join('\n'));
  }
  return { root, heldOut, missing };
}

/** Blanks the comment block that ends right above 1-based `line` (decorators skipped); returns 1 when there was one. */
function blankCommentAbove(lines: string[], line: number): number {
  let end = line - 2;
  while (end >= 0 && /^\s*@/.test(lines[end]!)) end--;
  if (end < 0 || !/\*\/\s*$|^\s*\/\//.test(lines[end]!)) return 0;
  let start = end;
  if (/\*\/\s*$/.test(lines[end]!)) {
    while (start > 0 && !lines[start]!.includes('/*')) start--;
  } else {
    while (start > 0 && /^\s*\/\//.test(lines[start - 1]!)) start--;
  }
  for (let i = start; i <= end; i++) lines[i] = '';
  return 1;
}
