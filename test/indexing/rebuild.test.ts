/** A rebuild is one transaction: readers keep the previous index until the new one is complete, and a failed rebuild leaves it as it was. */
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

function modules(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    files[`src/m${i}.ts`] =
      `/** Computes the invoice total ${i}. */\nexport function invoiceTotal${i}(x: number): number {\n  return x * ${i};\n}\n`;
  return files;
}

/** Elements a reader sees now (a connection of its own). */
function readerCount(indexDir: string): number {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    return store.elementCount;
  } finally {
    store.close();
  }
}

describe('--rebuild', () => {
  it('readers see the previous index, whole, until the rebuilt one is committed', async () => {
    const repo = (owned.repo = tempRepo(modules(200)));
    const first = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const seen: number[] = [];
    const searches: Promise<number>[] = [];
    const searchers: Searcher[] = [];
    const indexer = new Indexer({
      path: repo.root,
      embedder: 'builtin',
      llm: false,
      onEvent: (event) => {
        if (event.type !== 'progress' || event.done % 40 !== 0) return;
        seen.push(readerCount(indexer.indexDir));
        searches.push(
          Searcher.open({ indexDir: indexer.indexDir }).then(async (opened) => {
            searchers.push(opened);
            return (await opened.search('invoice total')).results.length;
          }),
        );
      },
    });
    const rebuilt = await indexer.run({ rebuild: true });
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((count) => count === first.elements.total)).toBe(true);
    const found = await Promise.all(searches);
    for (const searcher of searchers) searcher.close();
    expect(found.every((count) => count > 0)).toBe(true);
    expect(rebuilt.elements.total).toBe(first.elements.total);
    expect((await readIndex(indexer.indexDir)).consistency.ok).toBe(true);
  });

  it('an aborted rebuild leaves the previous index as it was', async () => {
    const repo = (owned.repo = tempRepo(modules(120)));
    const first = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const controller = new AbortController();
    const aborted: string[] = [];
    const indexer = new Indexer({
      path: repo.root,
      embedder: 'builtin',
      llm: false,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'progress' && event.done === 80) controller.abort();
        if (event.type === 'run-aborted') aborted.push(event.reason);
      },
    });
    // The run rejects with the abort's own reason, not with whatever else went wrong on the way.
    const error = await indexer.run({ rebuild: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(controller.signal.aborted).toBe(true);
    expect(error).toBe(controller.signal.reason);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(aborted).toEqual([(controller.signal.reason as Error).message]);
    const state = await readIndex(indexer.indexDir);
    expect(state.elements).toHaveLength(first.elements.total);
    expect(state.consistency.ok).toBe(true);
  });
});
