/**
 * The Indexer's collaborators passed in as plain objects: an embedder, an
 * enricher and an analyzer that are neither Ollama nor worker threads.
 */
import { describe, expect, it } from 'vitest';
import { analyzeText, type Enricher } from '../../src/analysis/analyzer.js';
import type { FileAnalyzer } from '../../src/indexing/pool.js';
import type { CodeFile } from '../../src/analysis/types.js';
import { eachConcurrently, largestFirst } from '../../src/indexing/index-run.js';
import { Indexer } from '../../src/indexing/indexer.js';
import { indexStatus } from '../../src/indexing/status.js';
import type { Embedder } from '../../src/vector/embedder.js';
import { readIndex } from '../helpers/index-state.js';
import { cleanedUpAfterEach, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

const DIMENSION = 8;

/** One unit vector per document, chosen by its length: deterministic and cheap. */
class FakeEmbedder implements Embedder {
  readonly id = 'fake:v1';
  readonly dimension = DIMENSION;
  readonly inProcess = true;
  calls = 0;
  async init(): Promise<void> {}
  async embedDocuments(texts: readonly string[]): Promise<Float32Array> {
    this.calls++;
    const out = new Float32Array(texts.length * DIMENSION);
    texts.forEach((text, i) => (out[i * DIMENSION + (text.length % DIMENSION)] = 1));
    return out;
  }
  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embedDocuments([text])).subarray(0, DIMENSION);
  }
}

/** Describes every element the same way, one "call" per file. */
class FakeEnricher implements Enricher {
  readonly model = 'fake-model';
  calls = 0;
  async enrich(file: CodeFile): Promise<CodeFile> {
    this.calls++;
    return {
      ...file,
      source: 'ast+llm',
      elements: file.elements.map((element) => ({ ...element, description: `described by ${this.model}` })),
    };
  }
  async plannedCalls(): Promise<number> {
    return 1;
  }
}

/** Analysis on the calling thread. */
const inline: FileAnalyzer = {
  threads: 1,
  analyzeBytes: async (path, bytes) => analyzeText(path, new TextDecoder().decode(bytes)),
};

describe('an Indexer with collaborators passed in', () => {
  const owned = cleanedUpAfterEach();

  it('indexes with a fake embedder, enricher and analyzer, and reports their calls and model', async () => {
    const repo = (owned.repo = tempRepo(SAMPLE_FILES));
    const embedder = new FakeEmbedder();
    const enricher = new FakeEnricher();
    const indexer = new Indexer({ path: repo.root, embedder, enricher, analyzer: inline });

    const dry = await indexer.dryRun();
    expect(dry.embedder).toBe('fake:v1');
    expect(dry.analysisModel).toBe('fake-model');
    expect(dry.calls.model).toBeGreaterThan(0);
    expect(enricher.calls).toBe(0);

    const summary = await indexer.run();
    expect(summary.embedder).toBe('fake:v1');
    expect(summary.files.added).toBe(Object.keys(SAMPLE_FILES).length);
    expect(summary.calls.model).toBe(enricher.calls);
    expect(enricher.calls).toBe(dry.calls.model);
    expect(summary.calls.embedding).toBe(embedder.calls);
    expect(embedder.calls).toBeGreaterThan(0);

    const state = await readIndex(indexer.indexDir);
    expect(state.consistency.ok).toBe(true);
    expect(state.elements.length).toBe(summary.elements.total);
    const status = await indexStatus(indexer.indexDir);
    expect(status.embedder).toEqual({ id: 'fake:v1', dimension: DIMENSION });
    expect(status.lastRun?.analysisModel).toBe('fake-model');
  });

  it('starts the largest files first, so that the longest parses do not run alone at the end', () => {
    const scanned = [
      { path: 'a.ts', size: 20 },
      { path: 'b.ts', size: 3020 },
      { path: 'c.ts', size: 920 },
      { path: 'd.ts', size: 20 },
    ];
    // Same sizes keep the scan's order.
    expect(largestFirst(scanned).map((file) => file.path)).toEqual(['b.ts', 'c.ts', 'a.ts', 'd.ts']);
  });

  it('starts items in their order, whichever finishes first', async () => {
    const started: number[] = [];
    const items = [0, 1, 2, 3, 4, 5, 6, 7];
    // The first items take longest: a schedule that followed completions would reorder the rest.
    const stopped = await eachConcurrently(
      items,
      3,
      async (item) => {
        started.push(item);
        await new Promise((resolve) => setTimeout(resolve, (items.length - item) * 3));
      },
      undefined,
    );
    expect(stopped).toBeUndefined();
    expect(started).toEqual(items);
  });
});
