/**
 * The FAISS file belongs to the database that wrote it: a file left by an
 * earlier database, copied from another index, or replaced by something that
 * is not a regular file is never used as if it were this database's.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import type { VectorIndexEvent } from '../../src/store/embedded/vector-file.js';
import { readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';

const owned = cleanedUpAfterEach();

/** Modules of one function each, whose bodies differ: swapping two keeps the element count and changes the vectors. */
function modules(order: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  order.forEach((topic, i) => {
    files[`src/m${i}.ts`] =
      `/** Handles ${topic}. */\nexport function handle${topic}(input: string): string {\n  return input.split('${topic}').join('${topic.toUpperCase()}');\n}\n`;
  });
  return files;
}
const TOPICS = ['Invoices', 'Payments', 'Shipping', 'Returns', 'Customers', 'Coupons', 'Taxes', 'Reports'];

const indexerFor = (root: string) => new Indexer({ path: root, embedder: 'builtin', llm: false });
const vectorFile = (dir: string) => readdirSync(dir).find((name) => /^vectors-g\d+\.ocvx$/.test(name))!;

async function openEvents(dir: string): Promise<VectorIndexEvent[]> {
  const events: VectorIndexEvent[] = [];
  (await openIndex(dir, { onEvent: (event) => events.push(event) })).close();
  return events;
}

describe('the vectors file is bound to its database', () => {
  it('a file outliving its deleted database is not reused: every vector is its element’s', async () => {
    const repo = (owned.repo = tempRepo(modules(TOPICS)));
    const indexer = indexerFor(repo.root);
    await indexer.run();
    for (const name of ['index.db', 'index.db-wal', 'index.db-shm'])
      rmSync(join(indexer.indexDir, name), { force: true });
    // Same number of elements, different documents under each path.
    for (const [path, content] of Object.entries(modules([...TOPICS].reverse()))) repo.write(path, content);
    await indexer.run();
    const state = await readIndex(indexer.indexDir);
    expect(state.consistency).toMatchObject({ ok: true, mismatched: [], elements: TOPICS.length });
  });

  it('a file copied from another index is ignored and rebuilt; the next run replaces it', async () => {
    const repo = (owned.repo = tempRepo(modules(TOPICS)));
    const other = tempRepo(modules([...TOPICS].reverse()));
    try {
      const indexer = indexerFor(repo.root);
      const otherIndexer = indexerFor(other.root);
      await indexer.run();
      await otherIndexer.run();
      const mine = vectorFile(indexer.indexDir);
      copyFileSync(join(otherIndexer.indexDir, vectorFile(otherIndexer.indexDir)), join(indexer.indexDir, mine));
      // The built-in embedder's vectors were in this database's file alone: a reader cannot have them.
      await expect(openEvents(indexer.indexDir)).rejects.toThrow(
        new RegExp(`${TOPICS.length} of .* no vector \\(no index file that this database wrote.*run oc-vector-index`),
      );
      await indexer.run();
      expect(await openEvents(indexer.indexDir)).toEqual([]);
      expect((await readIndex(indexer.indexDir)).consistency).toMatchObject({
        ok: true,
        mismatched: [],
        vectors: TOPICS.length,
      });
    } finally {
      other.cleanup();
    }
  });

  it('a FIFO in the place of the file: searches do not hang, the next run replaces it with a regular file', async () => {
    const repo = (owned.repo = tempRepo(modules(TOPICS)));
    const indexer = indexerFor(repo.root);
    await indexer.run();
    const path = join(indexer.indexDir, vectorFile(indexer.indexDir));
    rmSync(path);
    execFileSync('mkfifo', [path]);
    // Refused without waiting on the FIFO: the vectors that were in the file alone are missing until the next run.
    await expect(readIndex(indexer.indexDir)).rejects.toThrow(/no vector .*run oc-vector-index/);
    const summary = await indexer.run();
    expect(summary.index.written).toBe(true);
    const files = readdirSync(indexer.indexDir).filter((name) => name.endsWith('.ocvx'));
    expect(files.map((name) => lstatSync(join(indexer.indexDir, name)).isFile())).toEqual([true]);
    expect(await openEvents(indexer.indexDir)).toEqual([]);
    expect((await readIndex(indexer.indexDir)).consistency).toMatchObject({ ok: true, vectors: TOPICS.length });
  });
});
