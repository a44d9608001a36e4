/**
 * Many repositories in one index (issue 27, part 1): each indexed under a
 * name, searched together or apart, each result naming its repository. A
 * search scoped to one repository of a shared index ranks exactly as that
 * repository indexed alone (its own BM25 statistics, term weights and
 * counts); re-indexing or dropping one leaves the others' rows as they were.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher } from '../../src/internal.js';
import { indexStatus } from '../../src/indexing/status.js';
import { SearchError } from '../../src/search/errors.js';
import { StoreError } from '../../src/store/errors.js';
import { dropRepository } from '../../src/store/embedded/drop-repository.js';
import type { SearchResponse } from '../../src/search/searcher.js';
import { readIndex } from '../helpers/index-state.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import {
  type Answer,
  expectSameAnswers,
  searchFixtureFiles,
  storeSources,
  TWO_REPOSITORY_QUERIES,
} from '../helpers/search-repo.js';

const QUERIES = [...TWO_REPOSITORY_QUERIES];

/** What a result is, whatever index it came from (vector ids and absolute paths differ), with its score. */
function shape(response: SearchResponse): Answer[] {
  return response.results.map((r) => ({ what: `${r.path}:${r.startLine}-${r.endLine} ${r.name}`, score: r.score }));
}

let fixture: TempRepo;
let store: TempRepo;
let shared: TempRepo;
const sharedDb = () => join(shared.root, 'index');

beforeAll(async () => {
  fixture = tempRepo(searchFixtureFiles());
  store = tempRepo(storeSources());
  shared = tempRepo();
  for (const repo of [fixture, store]) await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
  await indexShared(fixture.root, 'app');
  await indexShared(store.root, 'ocv/store');
}, 120_000);

/** Indexes a directory into the shared index, under a name when given. */
function indexShared(path: string, repo?: string) {
  return new Indexer({
    path,
    indexDir: sharedDb(),
    ...(repo ? { repo } : {}),
    embedder: 'builtin',
    llm: false,
  }).run();
}

afterAll(() => {
  for (const repo of [fixture, store, shared]) repo?.cleanup();
});

async function searchAll(indexDir: string, options: { repos?: string[] } = {}): Promise<Map<string, Answer[]>> {
  const searcher = await Searcher.open({ indexDir });
  try {
    const out = new Map<string, Answer[]>();
    for (const query of QUERIES) out.set(query, shape(await searcher.search(query, { ...options, snippet: false })));
    return out;
  } finally {
    searcher.close();
  }
}

describe('an index of several repositories', () => {
  it('ranks a search scoped to one repository as that repository indexed alone', async () => {
    const alone = await searchAll(join(fixture.root, '.ocvector'));
    const scoped = await searchAll(sharedDb(), { repos: ['app'] });
    expectSameAnswers(scoped, alone);
    const storeAlone = await searchAll(join(store.root, '.ocvector'));
    const storeScoped = await searchAll(sharedDb(), { repos: ['ocv/store'] });
    expectSameAnswers(storeScoped, storeAlone);
    // Not vacuous: the two repositories answer the same questions differently.
    expect(storeScoped).not.toEqual(scoped);
  });

  it('searches every repository by default, each result naming its own, with paths relative to it', async () => {
    const searcher = await Searcher.open({ indexDir: sharedDb() });
    try {
      expect(searcher.repositories().map((r) => r.name)).toEqual(['app', 'ocv/store']);
      const both = await searcher.search('hash a password and open the index database', { k: 20 });
      const repos = new Set(both.results.map((r) => r.repo));
      expect(repos).toEqual(new Set(['app', 'ocv/store']));
      for (const result of both.results) {
        const root = result.repo === 'app' ? fixture.root : store.root;
        expect(result.absolutePath).toBe(join(root, result.path));
      }
      const one = await searcher.search('hash a password', { repos: ['ocv/store'], k: 20 });
      expect(one.results.length).toBeGreaterThan(0);
      expect(one.results.every((r) => r.repo === 'ocv/store')).toBe(true);
      const refs = await searcher.references('prepared', { repos: ['ocv/store'] });
      expect(refs.files.length).toBeGreaterThan(0);
      expect(refs.files.every((file) => file.repo === 'ocv/store')).toBe(true);
      expect((await searcher.references('prepared', { repos: ['app'] })).files).toEqual([]);
    } finally {
      searcher.close();
    }
  });

  it('refuses unknown and malformed repository names with a clear error, naming no other repository', async () => {
    const searcher = await Searcher.open({ indexDir: sharedDb() });
    try {
      for (const repos of [['nope'], ["app'; DROP TABLE files; --"], []]) {
        const error = await searcher.search('password', { repos }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SearchError);
        expect((error as Error).message).not.toContain('ocv/store');
      }
      const unknown = await searcher.search('password', { repos: ['nope'] }).catch((e: unknown) => e);
      expect((unknown as SearchError).code).toBe('UNKNOWN_REPO');
      // Nothing was harmed by the SQL-shaped name.
      expect((await searcher.search('password', { repos: ['app'] })).results.length).toBeGreaterThan(0);
    } finally {
      searcher.close();
    }
    await expect(indexShared(store.root, '../x')).rejects.toMatchObject({ code: 'BAD_NAME' });
    // A directory whose own name another repository has is not indexed in its place unless named so.
    const namesake = tempRepo({ 'app/main.ts': 'export const x = 1;\n' });
    try {
      await expect(indexShared(join(namesake.root, 'app'))).rejects.toMatchObject({ code: 'NAME_TAKEN' });
    } finally {
      namesake.cleanup();
    }
  });

  it('lists the repositories with their files, elements and indexing time, and scopes the status', async () => {
    const status = await indexStatus(sharedDb());
    expect(status.repositories.map((r) => r.name)).toEqual(['app', 'ocv/store']);
    for (const repository of status.repositories) {
      expect(repository.files).toBeGreaterThan(0);
      expect(repository.elements).toBeGreaterThan(0);
      expect(repository.indexedAt).not.toBeNull();
    }
    expect(status.stale).toEqual({ modified: [], deleted: [], added: [] });
    const scoped = await indexStatus(sharedDb(), { repos: ['app'] });
    expect(scoped.repositories.map((r) => r.name)).toEqual(['app']);
    expect(scoped.elements).toBe(status.repositories[0]!.elements);
    expect(JSON.stringify(scoped)).not.toContain('ocv/store');
  });

  it('adds a repository whole: searches during its first run see it complete or not at all', async () => {
    const third = tempRepo({ 'src/third.ts': 'export function thirdRepositoryOnly(): number {\n  return 3;\n}\n' });
    try {
      const seen: Promise<string[]>[] = [];
      await new Indexer({
        path: third.root,
        indexDir: sharedDb(),
        repo: 'third',
        embedder: 'builtin',
        llm: false,
        // While the run writes, what another process reading the index sees.
        onEvent: (event) => {
          if (event.type === 'progress')
            seen.push(indexStatus(sharedDb(), { checkFiles: false }).then((s) => s.repositories.map((r) => r.name)));
        },
      }).run();
      const during = await Promise.all(seen);
      expect(during.length).toBeGreaterThan(0);
      for (const names of during) expect(names).toEqual(['app', 'ocv/store']);
      expect((await indexStatus(sharedDb(), { checkFiles: false })).repositories.map((r) => r.name)).toContain('third');
    } finally {
      await dropRepository(sharedDb(), 'third');
      third.cleanup();
    }
  });

  it('re-indexes one repository without touching the rows of another', async () => {
    const before = await readIndex(sharedDb());
    fixture.write('src/extra.ts', 'export function brandNewHelper(): number {\n  return 42;\n}\n');
    const summary = await indexShared(fixture.root, 'app');
    expect(summary.files.added).toBe(1);
    const after = await readIndex(sharedDb());
    const storeRows = (state: typeof before) => state.elements.filter((e) => e.path.startsWith('src/store/'));
    expect(storeRows(after)).toEqual(storeRows(before));
    expect(after.consistency.ok).toBe(true);
  });

  it('indexes a checkout in a new directory under its name as the same repository, reading only what changed', async () => {
    const moved = tempRepo(storeSources());
    try {
      const summary = await indexShared(moved.root, 'ocv/store');
      expect(summary.elements.added).toBe(0);
      const status = await indexStatus(sharedDb(), { repos: ['ocv/store'] });
      expect(status.repositories[0]!.root).toBe(moved.root);
      // Indexed again without a name: its own repository, whatever the directory is called.
      expect((await indexShared(moved.root)).elements.added).toBe(0);
    } finally {
      await indexShared(store.root, 'ocv/store');
      moved.cleanup();
    }
  });

  it('drops one repository whole, leaving the other searchable as before', async () => {
    const alone = await searchAll(join(fixture.root, '.ocvector'));
    await new Indexer({ path: fixture.root, embedder: 'builtin', llm: false }).run(); // the extra file, alone too
    const aloneNow = await searchAll(join(fixture.root, '.ocvector'));
    expect(aloneNow).not.toEqual(alone);
    await expect(dropRepository(sharedDb(), 'nope')).rejects.toBeInstanceOf(StoreError);
    const dropped = await dropRepository(sharedDb(), 'ocv/store');
    expect(dropped.files).toBeGreaterThan(0);
    expect(dropped.elements).toBeGreaterThan(0);
    const status = await indexStatus(sharedDb());
    expect(status.repositories.map((r) => r.name)).toEqual(['app']);
    expectSameAnswers(await searchAll(sharedDb()), aloneNow);
    expect((await readIndex(sharedDb())).consistency.ok).toBe(true);
  });
});
