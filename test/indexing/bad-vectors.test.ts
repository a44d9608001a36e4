/**
 * An embedding server that answers vectors FAISS cannot index (70,000
 * dimensions, an infinity, all zeros, a dimension that changes) stops the
 * run with EmbedderError INVALID_VECTORS before anything of that answer is
 * written: a new index records no embedder, an existing one stays as it
 * was, and its searches keep working. The servers are real HTTP servers
 * speaking Ollama's API or an OpenAI-compatible one.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddingQueue } from '../../src/indexing/embedding-queue.js';
import { Indexer, type IndexerOptions } from '../../src/indexing/indexer.js';
import { StoreError } from '../../src/store/errors.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { Searcher } from '../../src/search/searcher.js';
import { BuiltinEmbedder } from '../../src/vector/builtin-embedder.js';
import { EmbedderError, type Embedder } from '../../src/vector/embedder.js';
import { MISBEHAVIOURS, type Misbehaviour } from '../helpers/bad-embeddings.js';
import { fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';
import { readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

const DIMENSION = 64;
const owned = cleanedUpAfterEach();

/** A server of the API's kind that misbehaves while `misbehave()` says so, and the indexer options that reach it. */
async function server(api: 'ollama' | 'openai', misbehave: () => Misbehaviour | undefined) {
  if (api === 'ollama') {
    const fake = (owned.fake = await fakeEmbeddingServer(DIMENSION, { misbehave }));
    const embedder: IndexerOptions['embedder'] = { host: fake.url, model: 'fake-embed' };
    return { url: fake.url, embedder, requests: () => fake.embeds.length };
  }
  const fake = (owned.fake = await fakeOpenAIEmbeddingServer(DIMENSION, { misbehave }));
  const embedder: IndexerOptions['embedder'] = { kind: 'openai', baseUrl: fake.url, model: 'fake-embed' };
  return { url: fake.url, embedder, requests: () => fake.embeddingRequests.length };
}

/**
 * The sample files indexed through a server that answers well until the
 * returned `misbehave` is called, and the index as it was then.
 */
async function indexedThrough(api: 'ollama' | 'openai') {
  const repo = (owned.repo = tempRepo(SAMPLE_FILES));
  let bad: Misbehaviour | undefined;
  const fake = await server(api, () => bad);
  const indexer = new Indexer({ path: repo.root, embedder: fake.embedder, llm: false });
  await indexer.run();
  const before = await snapshot(indexer.indexDir);
  return { repo, fake, indexer, before, misbehave: (next: Misbehaviour | undefined) => (bad = next) };
}

/** The index's embedder record, elements and consistency, as a reader sees them. */
async function snapshot(indexDir: string) {
  const store = IndexStore.open(indexDir, { readonly: true });
  const embedder = store.embedder;
  store.close();
  const { elements, consistency } = await readIndex(indexDir);
  return { embedder, elements, consistent: consistency.ok };
}

describe.each(['ollama', 'openai'] as const)('indexing through a misbehaving server (%s API)', (api) => {
  it('70,000 dimensions from the first answer: the run fails at once, and the new index records no embedder', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const fake = await server(api, () => 'oversized');
    const indexer = new Indexer({ path: repo.root, embedder: fake.embedder, llm: false });
    const error = await indexer.run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error).toMatchObject({ code: 'INVALID_VECTORS' });
    expect((error as Error).message).toContain(
      `the embedding server at ${fake.url} (${api}:fake-embed) answered vectors of 70000 dimensions; FAISS indexes at most 65536`,
    );
    expect(fake.requests()).toBe(1); // the probe, not retried; no document sent

    const store = IndexStore.open(indexer.indexDir, { readonly: true });
    try {
      expect(store.embedder).toBeUndefined();
      expect(store.elementCount).toBe(0);
    } finally {
      store.close();
    }
    expect(statSync(join(indexer.indexDir, 'index.db')).size).toBeLessThan(1 << 20);
    const refused = await Searcher.open({ indexDir: indexer.indexDir }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/is empty: run oc-vector-index/),
    });
  });

  it.each(MISBEHAVIOURS)(
    '%s on a changed file: the run fails, and the index is as it was, still searchable by vector',
    async (misbehaviour) => {
      const { repo, fake, indexer, before, misbehave } = await indexedThrough(api);
      expect(before.embedder).toEqual({ id: `${api}:fake-embed`, dimension: DIMENSION });

      misbehave(misbehaviour);
      repo.write('src/math.ts', 'export function lcm(a: number, b: number): number {\n  return a * b;\n}\n');
      const error = await indexer.run().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'INVALID_VECTORS' });
      expect(
        (error as Error).message.startsWith(`the embedding server at ${fake.url} (${api}:fake-embed) answered `),
      ).toBe(true);
      const after = await snapshot(indexer.indexDir);
      expect(after).toEqual(before);
      expect(after.elements.map((e) => e.name)).not.toContain('lcm');

      const searcher = await Searcher.open({ indexDir: indexer.indexDir, ...searchServer(api, fake.url) });
      try {
        misbehave(undefined);
        const response = await searcher.search('greatest common divisor', { mode: 'vector', k: 5 });
        expect(response.fallback).toBeUndefined();
        expect(response.results.map((r) => r.name)).toContain('gcd');
      } finally {
        searcher.close();
      }
    },
  );

  it('a rebuild through a server that now answers 70,000 dimensions leaves the index as it was', async () => {
    const { indexer, before, misbehave } = await indexedThrough(api);
    misbehave('oversized');
    await expect(indexer.run({ rebuild: true })).rejects.toMatchObject({ code: 'INVALID_VECTORS' });
    expect(await snapshot(indexer.indexDir)).toEqual(before);
  });
});

function searchServer(api: 'ollama' | 'openai', url: string) {
  return api === 'ollama' ? { ollama: { host: url } } : { openai: { baseUrl: url } };
}

/** An in-process embedder whose answer for a text containing `poison` is `bad` (NaN, zeros). */
function poisoned(bad: number): Embedder {
  return {
    id: 'fake:poisoned',
    dimension: DIMENSION,
    calls: 0,
    inProcess: true,
    async init() {},
    async embedDocuments(texts) {
      const out = new Float32Array(texts.length * DIMENSION);
      texts.forEach((text, i) => out.fill(text.includes('poison') ? bad : 1, i * DIMENSION, (i + 1) * DIMENSION));
      return out;
    },
    async embedQuery() {
      return new Float32Array(DIMENSION).fill(1);
    },
  };
}

describe('an embedder without a server, checked where its vectors enter the index', () => {
  it.each([
    ['NaN', Number.NaN, /answered a vector holding NaN \((its only vector|vector \d+ of \d+), value 1\)/],
    ['all zeros', 0, /answered an all-zero vector \((its only vector|vector \d+ of \d+)\), which matches nothing/],
  ])(
    '%s: INVALID_VECTORS naming the embedder; the files already done stay, the poisoned one is not written',
    async (_, bad, problem) => {
      const repo = (owned.repo = tempRepo({ ...SAMPLE_FILES, 'src/poison.ts': 'export const poison = 1;\n' }));
      const indexer = new Indexer({ path: repo.root, embedder: poisoned(bad), llm: false, threads: 1 });
      const error = await indexer.run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbedderError);
      expect(error).toMatchObject({ code: 'INVALID_VECTORS' });
      expect((error as Error).message).toMatch(/^the embedder fake:poisoned /);
      expect((error as Error).message).toMatch(problem);
      expect((error as Error).message).toMatch(/the embedder is broken/);
      const { elements, consistent } = await snapshot(indexer.indexDir);
      expect(consistent).toBe(true);
      expect(elements.map((e) => e.path)).not.toContain('src/poison.ts');
    },
  );

  it("the built-in embedder's zero vector (a text with no feature) passes: for it, that is an answer", async () => {
    const lookup = () => new Map<string, Float32Array>();
    const builtin = new EmbeddingQueue(new BuiltinEmbedder(), { batchSize: 4, concurrency: 1, lookup });
    const vectors = await builtin.vectorsFor([{ hash: 'braces', embeddingText: '{}' }]);
    expect(vectors.get('braces')!.every((x) => x === 0)).toBe(true);
    const other = new EmbeddingQueue(poisoned(0), { batchSize: 4, concurrency: 1, lookup });
    await expect(other.vectorsFor([{ hash: 'p', embeddingText: 'poison' }])).rejects.toMatchObject({
      code: 'INVALID_VECTORS',
    });
  });
});

describe('an index.db written by an older version with a 70,000-dimension embedder', () => {
  it('is rebuilt by the next run, and searched by vector again', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    const first = await indexer.run();
    const id = first.embedder;
    const store = IndexStore.open(indexer.indexDir);
    store.meta.embedder = { id, dimension: 70_000 };
    store.close();
    for (const name of readdirSync(indexer.indexDir)) if (name.endsWith('.ocvx')) rmSync(join(indexer.indexDir, name));

    const rebuilt = await indexer.run();
    expect(rebuilt.elements.total).toBe(first.elements.total);
    expect((await snapshot(indexer.indexDir)).embedder).toEqual({ id, dimension: 512 });
    const searcher = await Searcher.open({ indexDir: indexer.indexDir });
    try {
      const response = await searcher.search('greatest common divisor', { k: 3 });
      expect(response).toMatchObject({ mode: 'hybrid' });
      expect(response.fallback).toBeUndefined();
    } finally {
      searcher.close();
    }
  });
});
