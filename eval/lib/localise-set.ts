/**
 * The localisation development set (../shared/localisation-dev/): its
 * instances, the held-out half this project keeps for itself, and which
 * files the whole-file BM25 baseline ranks.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface LocaliseInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  /** Non-test files the fix changed that exist at the base commit (the strict gold). */
  gold_files: string[];
  /** `gold_files` restricted to source-code extensions (the primary gold; never empty). */
  gold_code_files: string[];
  language: string;
  source: string;
}

export interface LocaliseRepo {
  git_dir: string;
  language: string;
  missing_blobs_at_base_commits: string[];
}

export type Split = 'dev' | 'held-out' | 'all';

/** Reads a set's JSONL, one instance a line; a malformed line names its number. */
export function loadInstances(file: string): LocaliseInstance[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (line.trim() === '') return [];
      const record = JSON.parse(line) as Partial<LocaliseInstance>;
      for (const field of ['instance_id', 'repo', 'base_commit', 'problem_statement', 'language'] as const)
        if (typeof record[field] !== 'string') throw new Error(`${file}:${i + 1}: no ${field}`);
      if (!Array.isArray(record.gold_code_files) || record.gold_code_files.length === 0)
        throw new Error(`${file}:${i + 1}: no gold_code_files`);
      return [{ ...record, gold_files: record.gold_files ?? record.gold_code_files } as LocaliseInstance];
    });
}

export function loadRepos(file: string): Record<string, LocaliseRepo> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, LocaliseRepo>;
}

/**
 * The half an instance belongs to, fixed by its id alone: `dev` when the last
 * byte of sha1(instance_id) is even, `held-out` when odd (360 and 356 of
 * instances.jsonl's 716). Tune on `dev`; look at `held-out` to confirm.
 */
export function splitOf(instanceId: string): Exclude<Split, 'all'> {
  const digest = createHash('sha1').update(instanceId).digest();
  return (digest[digest.length - 1]! & 1) === 0 ? 'dev' : 'held-out';
}

export function inSplit(instanceId: string, split: Split): boolean {
  return split === 'all' || splitOf(instanceId) === split;
}

/** The extensions the set counts as source code (README: `gold_code_files`). */
export const CODE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'py pyi pyx pxd java kt kts scala groovy js jsx mjs cjs ts tsx mts cts vue svelte go rs c h cc cpp cxx ' +
    'hpp hh hxx ipp inl tpp m mm rb php cs swift lua jq y l re2c'
  ).split(' '),
);

/** A file with one of the set's source-code extensions: what the whole-file BM25 ranks. */
export function isCodeFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 && CODE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/**
 * Test paths as the set's own filter names them (README, source 3): a
 * component tests?/__tests__/testing/spec(s)/e2e/testdata/fixtures?/selftest,
 * or a file test_*, *_test.{go,py,rs,c,cc,cpp}, *Test(s)|IT.java,
 * *.test|spec.{js,ts,…}; and Python's conftest.py.
 */
const TEST_COMPONENT = /(?:^|\/)(?:tests?|__tests__|testing|specs?|e2e|testdata|fixtures?|selftest)\//i;
const TEST_FILE =
  /(?:^|\/)(?:test_[^/]*|[^/]+_test\.(?:go|py|rs|c|cc|cpp)|[^/]+(?:Tests?|IT)\.java|[^/]+\.(?:test|spec)\.[a-z]+|conftest\.py)$/;
/** Build output and packaging folders. */
const BUILD_FOLDER = /(?:^|\/)(?:build|dist|target|out)\//;

/** A test file, or a file in a build folder: what the second BM25 row leaves out. */
export function isTestOrBuild(path: string): boolean {
  return TEST_COMPONENT.test(path) || TEST_FILE.test(path) || BUILD_FOLDER.test(path);
}
