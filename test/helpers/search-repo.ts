/** The labelled search fixture (test/fixtures/search-repo), copied into a temporary repository. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
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
