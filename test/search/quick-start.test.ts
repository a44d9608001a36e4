/**
 * The README's Quick start searches this repository (issue 57, point 1). A
 * C++ header's field of a library type came first: the index's stemmer
 * joins the query's adverb with that type's name, the header holds it three
 * times, and a request's whole-file BM25 lifted the field above the
 * functions the query describes. Here, on this repository's own index as
 * the Quick start builds it (built-in embedder, no model), one of those
 * functions comes first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher } from '../../src/index.js';
import type { SearchResult } from '../../src/search/response.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const QUICK_START_QUERY = 'write the index file atomically';
/** The answers: the facade's method and the native function it calls. */
const ANSWERS = ['FaissIndex.write', 'ocvector.WriteIndexFile'];

describe("the Quick start's query, on this repository", () => {
  let indexDir: string;
  let results: SearchResult[];

  beforeAll(async () => {
    indexDir = mkdtempSync(join(tmpdir(), 'ocvector-quick-start-'));
    await new Indexer({ path: ROOT, root: ROOT, indexDir, embedder: 'builtin', llm: false }).run();
    const searcher = await Searcher.open({ indexDir });
    try {
      results = (await searcher.search(QUICK_START_QUERY, { k: 10, snippet: false })).results;
    } finally {
      searcher.close();
    }
  }, 240_000);
  afterAll(() => rmSync(indexDir, { recursive: true, force: true }));

  it('answers with the function the query describes, not a field of a look-alike type', () => {
    const listed = results.map((result) => `${result.path}:${result.startLine} ${result.name}`);
    expect(ANSWERS, listed.join('\n')).toContain(results[0]!.name);
  });
});
