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

/** The last commit that changed `path` in this repository, in full; undefined outside a git checkout. */
export function lastCommitOf(path: string): string | undefined {
  return gitHere(['log', '-1', '--format=%H', '--', path])?.toString('utf8').trim() || undefined;
}

/** A git command in this repository; undefined when it fails (no git, no history, no such commit). */
function gitHere(args: readonly string[]): Buffer | undefined {
  try {
    return execFileSync('git', ['-C', ROOT, ...args], { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/** The corpus's files, relative to `source` (by default its live source), sorted. */
export function corpusFiles(corpus: Corpus, source = corpus.source): string[] {
  return (readdirSync(source, { recursive: true }) as string[]).filter(corpus.include).sort();
}

/** The commit a set was built from, when its corpus is in this repository's history and the commit is there. */
export function pinnedCommit(corpus: Corpus): string | undefined {
  if (corpus.gitPath === undefined) return undefined;
  const file = join(SETS_DIR, corpus.name, 'source.json');
  if (!existsSync(file)) return undefined;
  const { commit } = JSON.parse(readFileSync(file, 'utf8')) as { commit?: string };
  return commit && gitHere(['cat-file', '-e', `${commit}^{commit}`]) ? commit : undefined;
}

/** The corpus's files as of `commit`, written under a new temporary directory (the caller removes it). */
function checkOut(corpus: Corpus, commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ocvector-corpus-${corpus.name}-`));
  const archive = gitHere(['archive', '--format=tar', commit, corpus.gitPath!]);
  if (!archive) throw new Error(`cannot lay out ${corpus.gitPath} as of ${commit}`);
  execFileSync('tar', ['-x', '-C', dir], { input: archive, stdio: ['pipe', 'ignore', 'pipe'] });
  return dir;
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
  const commit = pinnedCommit(corpus);
  const checkedOut = commit ? checkOut(corpus, commit) : undefined;
  try {
    const source = checkedOut ? join(checkedOut, corpus.gitPath!) : corpus.source;
    return { ...copyHeldOut(corpus, source, queries, root), commit };
  } finally {
    if (checkedOut) rmSync(checkedOut, { recursive: true, force: true });
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
