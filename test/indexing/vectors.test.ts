/** The FAISS side: approximate indexes past a threshold, exact deletions, checkpoints, failures of the embedder, watch mode. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { watchIndex } from '../../src/indexing/watch.js';
import { openIndex } from '../../src/store/embedded/open-index.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { planIndex } from '../../src/store/embedded/index-plan.js';
import { readTrainingSample, vectorPages } from '../../src/store/embedded/vector-pages.js';
import type { VectorRowsRead } from '../../src/store/embedded/vector-rows.js';
import { FaissIndex } from '../../src/native/faiss-index.js';
import { BuiltinEmbedder } from '../../src/vector/builtin-embedder.js';
import { EmbedderError } from '../../src/vector/embedder.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, eventLog, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';
import { prepared } from '../../src/store/embedded/sqlite.js';

const owned = cleanedUpAfterEach();

function manyModules(count: number, from = 0): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = from; i < from + count; i++) {
    files[`src/m${i}.ts`] =
      `/** Module ${i}: computes value ${i}. */\nexport function value${i}(x: number): number {\n  return x + ${i};\n}\n\nexport class Holder${i} {\n  readonly amount = ${i};\n}\n`;
  }
  return files;
}

describe('index type and deletions', () => {
  it('plans exact search while small and IVF past the threshold', () => {
    expect(planIndex(10, 100).description).toBe('Flat');
    expect(planIndex(1_000_000, 200_000).description).toBe('IVF4096,SQfp16');
  });

  it('switches to IVF past the threshold, removes exactly on it, and never returns a removed element', async () => {
    const repo = (owned.repo = tempRepo(manyModules(150)));
    const log = eventLog();
    const options = {
      path: repo.root,
      embedder: 'builtin' as const,
      llm: false,
      vectorIndex: { approximateThreshold: 200 },
      onEvent: log.onEvent,
    };
    const first = await new Indexer(options).run();
    expect(first.elements.total).toBe(450); // a function, a class and its property per module
    expect(first.index.description).toMatch(/^IVF\d+,SQfp16$/);

    for (let i = 0; i < 50; i++) repo.remove(`src/m${i}.ts`);
    const second = await new Indexer(options).run();
    expect(second.files.deleted).toBe(50);
    const opened = await openIndex(join(repo.root, '.ocvector'), { approximateThreshold: 200 });
    try {
      expect(opened.vectors.index.description).toMatch(/^IVF/);
      expect(opened.vectors.ntotal).toBe(300);
      const live = new Set(
        (prepared(opened.store.database, 'SELECT vector_id AS id FROM elements').all() as { id: number }[]).map((r) =>
          BigInt(r.id),
        ),
      );
      const embedder = new BuiltinEmbedder();
      for (const query of ['value 3', 'Holder 10 amount', 'computes value 42']) {
        const q = await embedder.embedQuery(query);
        const result = await opened.vectors.index.search(q, 50, { nprobe: opened.vectors.nprobe! });
        const labels = [...result.labels].filter((l) => l >= 0n);
        expect(labels.length).toBeGreaterThan(0);
        for (const label of labels) expect(live.has(label)).toBe(true);
      }
    } finally {
      opened.close();
    }
    // Below half the threshold, it goes back to exact search.
    for (let i = 50; i < 120; i++) repo.remove(`src/m${i}.ts`);
    const third = await new Indexer(options).run();
    expect(third.index.description).toBe('Flat');
    expect((await readIndex(join(repo.root, '.ocvector'))).consistency.ok).toBe(true);
  });

  it('replays small changes from the database instead of rewriting the FAISS file', async () => {
    const repo = (owned.repo = tempRepo(manyModules(100)));
    const log = eventLog();
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false, onEvent: log.onEvent });
    const first = await indexer.run();
    expect(first.index.written).toBe(true);
    const fileAfterFirst = readdirSync(indexer.indexDir).filter((n) => n.endsWith('.ocvx'));
    repo.write('src/m1.ts', '/** Changed. */\nexport function changed(): number {\n  return 1;\n}\n');
    const second = await indexer.run();
    expect(second.index.written).toBe(false);
    expect(readdirSync(indexer.indexDir).filter((n) => n.endsWith('.ocvx'))).toEqual(fileAfterFirst);
    // A reader replays the change in memory.
    const replayed = eventLog();
    const opened = await openIndex(indexer.indexDir, {
      onEvent: (event) => replayed.onEvent({ type: 'vector-index', event }),
    });
    try {
      expect(replayed.events.map((e) => e.type === 'vector-index' && e.event)).toEqual([
        expect.objectContaining({ type: 'index-replayed', added: 1, removed: 3 }),
      ]);
      expect(opened.vectors.ntotal).toBe(first.elements.total - 2);
    } finally {
      opened.close();
    }
  });
});

describe('an embedder that fails mid-run', () => {
  it('stops the run with an EmbedderError, keeps what was done, and the next run finishes', async () => {
    const repo = (owned.repo = tempRepo({ ...SAMPLE_FILES, ...manyModules(40) }));
    let healthy = true;
    const fake = (owned.fake = await FakeOllama.start({
      embed: (request, index) => {
        if (index > 3 && !healthy) return { status: 500, body: { error: 'out of memory' } };
        return { body: { embeddings: (request.input as string[]).map((t) => [t.length, 1, 2]) } };
      },
    }));
    healthy = false;
    const indexer = new Indexer({
      path: repo.root,
      embedder: { host: fake.url, model: 'e', batchSize: 8 },
      llm: false,
      threads: 1,
    });
    const error = await indexer.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect((error as Error).message).toMatch(/HTTP 500|no more embedding calls/);
    const partial = await readIndex(indexer.indexDir);
    expect(partial.consistency.ok).toBe(true);
    expect(partial.files.length).toBeGreaterThan(0);
    expect(partial.files.every((f) => f.status !== 'failed')).toBe(true);

    healthy = true;
    const again = new Indexer({ path: repo.root, embedder: { host: fake.url, model: 'e', batchSize: 8 }, llm: false });
    const done = await again.run();
    expect(done.elements.total).toBeGreaterThan(partial.elements.length);
    expect((await readIndex(indexer.indexDir)).consistency.ok).toBe(true);
  });
});

describe('watch mode', () => {
  it('indexes changes as they happen, through the same incremental path', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const summaries: { changed: number; added: number; deleted: number }[] = [];
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    const watcher = watchIndex(indexer, {
      debounceMs: 50,
      onRun: (s) => summaries.push({ changed: s.files.changed, added: s.files.added, deleted: s.files.deleted }),
    });
    try {
      await watcher.ready;
      expect(summaries[0]!.added).toBe(Object.keys(SAMPLE_FILES).length);
      repo.write('src/watched.ts', 'export function watchedFunction(): void {}\n');
      await waitFor(async () => (await readIndex(indexer.indexDir)).elements.some((e) => e.name === 'watchedFunction'));
      repo.remove('src/math.ts');
      await waitFor(async () => !(await readIndex(indexer.indexDir)).elements.some((e) => e.name === 'gcd'));
      await watcher.idle();
      expect(summaries.slice(1).reduce((n, s) => n + s.added, 0)).toBe(1);
      expect(summaries.slice(1).reduce((n, s) => n + s.deleted, 0)).toBe(1);
      expect((await readIndex(indexer.indexDir)).consistency.ok).toBe(true);
    } finally {
      await watcher.close();
    }
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the watcher');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a rebuild reads the vectors a page at a time', () => {
  it('pages that together are every vector, in order, and a training sample spread evenly over them', async () => {
    const repo = (owned.repo = tempRepo(manyModules(40)));
    const summary = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const directory = join(repo.root, '.ocvector');
    const store = IndexStore.open(directory, { readonly: true });
    // The built-in embedder's vectors are kept once, in the FAISS file: the pages read them back from it.
    const file = await FaissIndex.read(join(directory, readdirSync(directory).find((name) => name.endsWith('.ocvx'))!));
    try {
      const embedder = store.meta.embedder!;
      const inDatabase = store.vectors(embedder);
      expect([inDatabase.ids.length, inDatabase.missing.length]).toEqual([0, summary.elements.total]);
      const live = BigInt64Array.from(inDatabase.missing, BigInt);
      const whole = { ids: live, vectors: (await file.reconstructMany(live)).vectors };

      const pages: VectorRowsRead[] = [];
      for await (const page of vectorPages(store, embedder, { rows: 7, previous: file })) pages.push(page);
      expect(pages.length).toBe(Math.ceil(summary.elements.total / 7));
      expect(pages.flatMap((page) => [...page.missing])).toEqual([]);
      expect(pages.flatMap((page) => [...page.ids])).toEqual([...whole.ids]);
      expect(Float32Array.from(pages.flatMap((page) => [...page.vectors]))).toEqual(whole.vectors);

      const d = embedder.dimension;
      const total = whole.ids.length;
      const sources = { rows: 7, previous: file };
      const sample = await readTrainingSample(store, embedder, total, 25, sources);
      expect(sample.length).toBe(25 * d);
      for (let i = 0; i < 25; i++) {
        const row = Math.floor(i * (total / 25)); // as the sample is taken: every (total / 25)th vector
        expect(sample.subarray(i * d, (i + 1) * d)).toEqual(whole.vectors.subarray(row * d, (row + 1) * d));
      }
      expect(await readTrainingSample(store, embedder, total, 10_000, sources)).toEqual(whole.vectors);
    } finally {
      file.close();
      store.close();
    }
  });
});
