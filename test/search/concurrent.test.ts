/**
 * Concurrent searches of the embedded index (a server answering many agents): they share the
 * snapshot open when they arrive, so that their k-NNs reach FAISS together (one call for
 * several queries, VectorIndex's SearchBatcher), and each answer is the one it gets alone. A
 * commit made meanwhile is seen by the next snapshot, never half.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { EmbeddedSearchStore } from '../../src/store/embedded/search-store.js';
import type { TempRepo } from '../helpers/repo.js';
import { LABELS, searchRepo } from '../helpers/search-repo.js';

let repo: TempRepo;
let indexDir: string;

beforeAll(async () => {
  repo = searchRepo();
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  indexDir = indexer.indexDir;
}, 60_000);

afterAll(() => repo?.cleanup());

const queries = LABELS.map((label) => label.query).slice(0, 16);

describe('concurrent searches of the embedded index', () => {
  it('answer each as alone, with fewer FAISS calls than searches', async () => {
    const alone = await Searcher.open({ indexDir });
    const expected = new Map<string, string[]>();
    try {
      for (const query of queries)
        expected.set(
          query,
          (await alone.search(query, { snippet: false })).results.map((r) => `${r.path}:${r.startLine} ${r.score}`),
        );
    } finally {
      alone.close();
    }
    const store = await EmbeddedSearchStore.open(indexDir);
    const searcher = await Searcher.open({ store });
    try {
      const before = store.vectorIndex!.searchStats;
      const answers = await Promise.all(queries.map((query) => searcher.search(query, { snippet: false })));
      answers.forEach((answer, i) =>
        expect(
          answer.results.map((r) => `${r.path}:${r.startLine} ${r.score}`),
          queries[i],
        ).toEqual(expected.get(queries[i]!)),
      );
      const after = store.vectorIndex!.searchStats;
      const calls = after.calls - before.calls;
      expect(after.queries - before.queries).toBe(queries.length);
      expect(calls).toBeLessThan(queries.length);
      expect(after.largestBatch).toBeGreaterThan(1);
    } finally {
      searcher.close();
      await store.close();
    }
  });

  it('see a commit made meanwhile from the next snapshot on, whole', async () => {
    const searcher = await Searcher.open({ indexDir });
    try {
      const first = searcher.search('concurrentlyAddedFunction', { mode: 'lexical' });
      repo.write('src/added.ts', 'export function concurrentlyAddedFunction(): number {\n  return 7;\n}\n');
      await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
      const second = searcher.search('concurrentlyAddedFunction', { mode: 'lexical' });
      const [before, after] = await Promise.all([first, second]);
      expect(before.results.some((r) => r.name === 'concurrentlyAddedFunction')).toBe(false);
      expect(after.results[0]).toMatchObject({ name: 'concurrentlyAddedFunction', path: 'src/added.ts' });
    } finally {
      searcher.close();
    }
  });

  it('waiting for the next snapshot when the store closes: rejected, not left waiting', async () => {
    const store = await EmbeddedSearchStore.open(indexDir);
    let release!: () => void;
    const holding = store.read(() => new Promise<void>((resolve) => (release = resolve)));
    // Past the window in which a search joins the open snapshot: the next one waits its turn.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const waiting = store.read(async () => 'read');
    await store.close();
    release();
    await holding.catch(() => {});
    await expect(waiting).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
