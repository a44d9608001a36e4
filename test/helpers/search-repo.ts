/** The labelled search fixture (test/fixtures/search-repo), copied into a temporary repository. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { Indexer, Searcher } from '../../src/index.js';
import { tempRepo, type TempRepo } from './repo.js';

export const SEARCH_FIXTURE = new URL('../fixtures/search-repo/', import.meta.url).pathname;

export interface Label {
  query: string;
  /** The element's qualified name, or several names that each answer the query. */
  expected: string | string[];
}

export const LABELS: Label[] = JSON.parse(readFileSync(join(SEARCH_FIXTURE, 'labels.json'), 'utf8')) as Label[];

/** The fixture's code files (not its labels), path -> content. */
export function searchFixtureFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name !== 'labels.json') files[relative(SEARCH_FIXTURE, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(SEARCH_FIXTURE);
  return files;
}

/**
 * This project's own store layer, the seam and the embedded store (src/store/*.ts and
 * src/store/embedded/*.ts), path -> content: real code, with words the fixture shares (index,
 * search, file), for a second repository beside the fixture.
 */
export function storeSources(): Record<string, string> {
  return Object.fromEntries(
    ['src/store', 'src/store/embedded'].flatMap((folder) => {
      const dir = new URL(`../../${folder}/`, import.meta.url).pathname;
      return readdirSync(dir)
        .filter((name) => name.endsWith('.ts'))
        .map((name) => [`${folder}/${name}`, readFileSync(join(dir, name), 'utf8')]);
    }),
  );
}

/** The queries a search over the fixture and the store's sources asks: the labels', and some of each repository's own. */
export const TWO_REPOSITORY_QUERIES = [
  ...LABELS.map((label) => label.query),
  'open the index database',
  'SearchReader',
  'fileTermCounts',
  'src/auth',
  'hashPassword',
];

export function searchRepo(): TempRepo {
  const repo = tempRepo(searchFixtureFiles());
  repo.age();
  return repo;
}

/**
 * The fixture indexed (built-in embedder, no model) before the suite's
 * tests and a Searcher open on it; both are cleaned up after them.
 */
export function indexedSearchRepo(): { repo: TempRepo; searcher: () => Searcher } {
  const repo = searchRepo();
  let searcher: Searcher | undefined;
  beforeAll(async () => {
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    await indexer.run();
    searcher = await Searcher.open({ indexDir: indexer.indexDir });
  });
  afterAll(() => {
    searcher?.close();
    repo.cleanup();
  });
  return { repo, searcher: () => searcher! };
}

/** A search result as two indexes can agree on it (their vector ids and absolute paths differ), with its score. */
export interface Answer {
  what: string;
  score: number;
}

/**
 * The same answers, as far as two builds of an index can give them: ties between equal scores
 * go by element id, and ids follow the order a run's files were written in, which varies, so a
 * candidate at the edge of a list (and what file-level features count) may differ. The same
 * top three in order, the same results, each score within 0.05.
 */
export function expectSameAnswers(actual: Map<string, Answer[]>, expected: Map<string, Answer[]>): void {
  expect([...actual.keys()]).toEqual([...expected.keys()]);
  for (const [query, want] of expected) {
    const got = actual.get(query)!;
    expect(
      got.slice(0, 3).map((r) => r.what),
      query,
    ).toEqual(want.slice(0, 3).map((r) => r.what));
    expect(new Set(got.map((r) => r.what)), query).toEqual(new Set(want.map((r) => r.what)));
    const scoreOf = new Map(want.map((r) => [r.what, r.score]));
    for (const r of got) expect(Math.abs(r.score - scoreOf.get(r.what)!), `${query}: ${r.what}`).toBeLessThan(0.05);
  }
}
