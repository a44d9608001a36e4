/**
 * Scores a change-location (commit) set: the repository's snapshot laid
 * out from its git directory and indexed as a user gets it (tests, docs
 * and all), then, at file level, per search mode and for the whole-file
 * BM25 baseline:
 *
 * - source only: every file that is not source (source-files.ts) taken
 *   out of the ranking before it is scored, as a whole-file BM25 over the
 *   source files alone ranks them;
 * - left in: the ranking as it comes, tests and docs included.
 *
 * The searches ask for SEARCH_K results, a user's default: the ranking
 * depends on it (a search for 100 results puts another file first for
 * about one query in six). A file's rank is its place among distinct files
 * in the order the results first name them (a search returns elements,
 * several to a file); hit@k and MRR count the first 10 files, so a search
 * whose ten results name fewer files has fewer chances.
 */
import type { EvalEmbedder } from './embedder-flag.js';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Indexer,
  IndexStore,
  loadEvalSet,
  scoreRanks,
  Searcher,
  type EvalQuery,
  type FusionWeights,
  type QueryKind,
  type RetrievalScores,
  type SearchMode,
} from '../../src/internal.js';
import { layOutSnapshot } from './commit-history.js';
import { COMMIT_SET_FILES, type CommitSetSource } from './commit-corpora.js';
import { SETS_DIR } from './corpora.js';
import { FileBm25 } from './file-bm25.js';
import { indexedFiles } from './indexed-files.js';
import { isSourcePath } from './source-files.js';

export const COMMIT_MODES: readonly SearchMode[] = ['lexical', 'vector', 'hybrid'];
/** Results asked of a search, as a user gets them by default (`--k` tries others). */
export const SEARCH_K = 10;
/** Files scored per query. */
export const FILE_DEPTH = 10;

export type Method = 'bm25' | SearchMode;
export type Scope = 'source' | 'all';

export interface CommitQueryDetail {
  id: string;
  query: string;
  expected: string[];
  /** 1-based rank of the first expected file among the first 10 (0: not there), by method and scope. */
  ranks: Record<Method, Record<Scope, number>>;
  /** The first 5 files of each method, by scope. */
  top: Record<Method, Record<Scope, string[]>>;
}

export interface CommitVariantReport {
  /** `as written`, or `no prefix` (the `type(scope):` prefix removed where there was one). */
  variant: string;
  queries: number;
  scores: Record<Method, Record<Scope, RetrievalScores>>;
  details: CommitQueryDetail[];
}

export interface CommitSetReport {
  name: string;
  /** Results each search asked for. */
  k: number;
  source: CommitSetSource;
  files: { all: number; source: number };
  elements: number;
  indexSeconds: number;
  /** Expected files the index does not hold (the snapshot was laid out differently): counted as misses. */
  missing: string[];
  variants: CommitVariantReport[];
}

/** Distinct paths in the order a ranked list first names them. */
export function distinctFiles(paths: Iterable<string>): string[] {
  return [...new Set(paths)];
}

/** The 1-based rank of the first expected file among the first FILE_DEPTH, or 0. */
export function fileRank(files: readonly string[], expected: readonly string[]): number {
  const wanted = new Set(expected);
  const index = files.slice(0, FILE_DEPTH).findIndex((path) => wanted.has(path));
  return index + 1;
}

export interface CommitSetOptions {
  name: string;
  source: CommitSetSource;
  gitDir: string;
  weights?: Partial<Record<QueryKind, FusionWeights>>;
  /** The embedder (default: the built-in one). */
  embedder?: EvalEmbedder;
  /** Results a search asks for (default SEARCH_K). */
  k?: number;
  /**
   * Keep the laid-out snapshot and its index under `<keep>/<set>/`, and
   * search an index already there instead of building it again: for trying
   * ranking changes, which do not touch the index. A change to analysis or
   * indexing needs that folder removed.
   */
  keep?: string;
  log?: (message: string) => void;
}

/** The snapshot laid out and indexed, or the ones a previous run kept. */
async function preparedIndex(
  options: CommitSetOptions,
): Promise<{ root: string; indexDir: string; elements: number; seconds: number; temporary: boolean }> {
  const { name, source, gitDir } = options;
  const kept = options.keep ? join(options.keep, name) : undefined;
  const embedder = options.embedder ?? { choice: 'builtin', options: {} };
  // What the kept index was built from: the snapshot and the embedder (another model's index is not reused).
  const stamp = `${source.commit} ${embedder.choice} ${JSON.stringify(embedder.options)}`;
  if (
    kept &&
    existsSync(join(kept, 'index', 'index.db')) &&
    existsSync(join(kept, 'tree')) &&
    existsSync(join(kept, 'commit'))
  ) {
    if (readFileSync(join(kept, 'commit'), 'utf8').trim() === stamp) {
      const store = IndexStore.open(join(kept, 'index'), { readonly: true });
      try {
        return {
          root: join(kept, 'tree'),
          indexDir: join(kept, 'index'),
          elements: store.elementCount,
          seconds: 0,
          temporary: false,
        };
      } finally {
        store.close();
      }
    }
  }
  let root: string;
  if (kept) {
    rmSync(kept, { recursive: true, force: true });
    root = join(kept, 'tree');
    mkdirSync(root, { recursive: true });
  } else root = mkdtempSync(join(tmpdir(), `ocvector-eval-${name}-`));
  layOutSnapshot(gitDir, source.commit, root);
  const summary = await new Indexer({
    path: root,
    ...(kept ? { indexDir: join(kept, 'index') } : {}),
    embedder: embedder.choice,
    embedderOptions: embedder.options,
    llm: false,
  }).run();
  if (kept) writeFileSync(join(kept, 'commit'), `${stamp}\n`);
  return {
    root,
    indexDir: summary.indexDir,
    elements: summary.elements.total,
    seconds: summary.durationMs / 1000,
    temporary: !kept,
  };
}

/** The set's query files that exist: the subjects as written, and (where any had a prefix) without it. */
export function commitSetVariants(name: string): { variant: string; queries: EvalQuery[] }[] {
  const out = [{ variant: 'as written', queries: loadEvalSet(join(SETS_DIR, name, COMMIT_SET_FILES.asWritten)) }];
  const noPrefix = join(SETS_DIR, name, COMMIT_SET_FILES.noPrefix);
  if (existsSync(noPrefix)) out.push({ variant: 'no prefix', queries: loadEvalSet(noPrefix) });
  return out;
}

export async function runCommitSet(options: CommitSetOptions): Promise<CommitSetReport> {
  const { name, source } = options;
  const prepared = await preparedIndex(options);
  try {
    const { root, indexDir } = prepared;
    const indexed = indexedFiles(indexDir);
    const documents = indexed.map((path) => ({ path, text: readFileSync(join(root, ...path.split('/')), 'utf8') }));
    const bm25: Record<Scope, FileBm25> = {
      all: new FileBm25(documents),
      source: new FileBm25(documents.filter((document) => isSourcePath(document.path))),
    };
    options.log?.(
      `${name}: ${indexed.length} files (${bm25.source.size} source), ${prepared.elements} elements ` +
        (prepared.seconds > 0 ? `indexed in ${prepared.seconds.toFixed(1)} s` : `(the index kept in ${options.keep})`),
    );
    const variants = commitSetVariants(name);
    const held = new Set(indexed);
    const missing = [
      ...new Set(variants[0]!.queries.flatMap((query) => query.expected_paths).filter((path) => !held.has(path))),
    ];
    const searcher = await Searcher.open({
      indexDir,
      embedderOptions: (options.embedder ?? { options: {} }).options,
      ...(options.weights ? { weights: options.weights } : {}),
    });
    try {
      const reports: CommitVariantReport[] = [];
      for (const { variant, queries } of variants)
        reports.push(await scoreVariant(variant, queries, searcher, bm25, options.k ?? SEARCH_K));
      return {
        name,
        k: options.k ?? SEARCH_K,
        source,
        files: { all: indexed.length, source: bm25.source.size },
        elements: prepared.elements,
        indexSeconds: prepared.seconds,
        missing,
        variants: reports,
      };
    } finally {
      searcher.close();
    }
  } finally {
    if (prepared.temporary) rmSync(prepared.root, { recursive: true, force: true });
  }
}

async function scoreVariant(
  variant: string,
  queries: readonly EvalQuery[],
  searcher: Searcher,
  bm25: Record<Scope, FileBm25>,
  k: number,
): Promise<CommitVariantReport> {
  const methods: Method[] = ['bm25', ...COMMIT_MODES];
  const details: CommitQueryDetail[] = [];
  for (const query of queries) {
    const paths = (hits: readonly { path: string }[]) => hits.map((hit) => hit.path);
    // BM25 over the source files alone; the searches' rankings with the other files taken out.
    const rankings: [Method, Record<Scope, string[]>][] = [
      ['bm25', { all: paths(bm25.all.rank(query.query)), source: paths(bm25.source.rank(query.query)) }],
    ];
    for (const mode of COMMIT_MODES) {
      const response = await searcher.search(query.query, { k, mode, snippet: false });
      const all = distinctFiles(paths(response.results));
      rankings.push([mode, { all, source: all.filter(isSourcePath) }]);
    }
    const rank = (files: readonly string[]) => fileRank(files, query.expected_paths);
    details.push({
      id: query.id,
      query: query.query,
      expected: query.expected_paths,
      ranks: Object.fromEntries(
        rankings.map(([method, ranking]) => [method, { source: rank(ranking.source), all: rank(ranking.all) }]),
      ) as CommitQueryDetail['ranks'],
      top: Object.fromEntries(
        rankings.map(([method, ranking]) => [
          method,
          { source: ranking.source.slice(0, 5), all: ranking.all.slice(0, 5) },
        ]),
      ) as CommitQueryDetail['top'],
    });
  }
  const scores = Object.fromEntries(
    methods.map((method) => [
      method,
      {
        source: scoreRanks(details.map((detail) => detail.ranks[method].source)),
        all: scoreRanks(details.map((detail) => detail.ranks[method].all)),
      },
    ]),
  ) as CommitVariantReport['scores'];
  return { variant, queries: queries.length, scores, details };
}
