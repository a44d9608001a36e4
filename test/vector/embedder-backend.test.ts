/**
 * The embedder-backend seam: a backend registered at run time (a tiny
 * deterministic in-process embedder, defined here) is asked for by name,
 * gets its options from the one options map, and is found again by the
 * Searcher from the id the index recorded, through the public Indexer and
 * Searcher alone.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Indexer, Searcher, type Embedder, type EmbedderBackend } from '../../src/index.js';
import { embedderOptionsOf, normalizeRows, registerEmbedderBackend } from '../../src/internal.js';
import { tempRepo } from '../helpers/repo.js';

/** Each lower-case word hashed into one of `dimension` buckets: deterministic, no model. */
class WordBagEmbedder implements Embedder {
  readonly inProcess = true;
  readonly allowsZeroVectors = true;
  calls = 0;
  constructor(readonly dimension: number) {}

  get id(): string {
    return `word-bag:${this.dimension}`;
  }

  async init(): Promise<void> {}

  async embedDocuments(texts: readonly string[]): Promise<Float32Array> {
    this.calls++;
    const out = new Float32Array(texts.length * this.dimension);
    texts.forEach((text, row) => {
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? [])
        out[row * this.dimension + bucket(word, this.dimension)]! += 1;
    });
    return normalizeRows(out, this.dimension);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    queries.push(text);
    return this.embedDocuments([text]);
  }
}

function bucket(word: string, dimension: number): number {
  let hash = 2166136261;
  for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return hash % dimension;
}

const queries: string[] = [];
const created: { dimension?: number }[] = [];

const wordBag: EmbedderBackend<{ dimension?: number }> = {
  name: 'word-bag',
  create(options) {
    created.push(options);
    return new WordBagEmbedder(options.dimension ?? 64);
  },
  fromId: (rest) => (/^\d+$/.test(rest) ? new WordBagEmbedder(Number(rest)) : undefined),
};
registerEmbedderBackend(wordBag);

describe('an embedder backend registered at run time', () => {
  it('indexes with the embedder asked for by name, with its options from the map; searches find it again by its id', async () => {
    const repo = tempRepo({
      'src/auth.ts':
        'export function hashPassword(password: string): string {\n  return password.split("").reverse().join("");\n}\n',
      'src/cart.ts':
        'export function addToCart(cart: string[], item: string): string[] {\n  return [...cart, item];\n}\n',
      'src/log.ts': 'export function writeLogLine(line: string): void {\n  console.error(line);\n}\n',
    });
    try {
      const summary = await new Indexer({
        path: repo.root,
        embedder: 'word-bag',
        embedderOptions: { 'word-bag': { dimension: 256 } },
        llm: false,
      }).run();
      expect(created).toEqual([{ dimension: 256 }]);
      expect(summary.embedder).toBe('word-bag:256');

      // No embedder given: the Searcher makes the index's own from its recorded id, by its backend.
      const searcher = await Searcher.open({ indexDir: join(repo.root, '.ocvector') });
      try {
        expect(searcher.embedderId).toBe('word-bag:256');
        const response = await searcher.search('hashpassword', { mode: 'vector', k: 3 });
        expect(response).toMatchObject({ mode: 'vector', embedder: 'word-bag:256' });
        expect(response.results[0]).toMatchObject({ name: 'hashPassword' });
        expect(queries).toEqual(['hashpassword']);
      } finally {
        await searcher.close();
      }
    } finally {
      repo.cleanup();
    }
  });

  it('refuses a second backend of a name already taken, and a name with a colon', () => {
    expect(() => registerEmbedderBackend(wordBag)).toThrow(TypeError);
    expect(() => registerEmbedderBackend({ ...wordBag, name: 'a:b' })).toThrow(TypeError);
    expect(() => registerEmbedderBackend({ ...wordBag, name: 'builtin' })).toThrow(TypeError);
  });

  it('takes the options given before the map (ollama, openai) as its entries; the map wins where both say', () => {
    expect(
      embedderOptionsOf({
        ollama: { host: 'http://a:1', model: 'm' },
        embedderOptions: { ollama: { host: 'http://b:2' } },
      }),
    ).toEqual({ ollama: { host: 'http://b:2', model: 'm' } });
    expect(embedderOptionsOf({ openai: { baseUrl: 'http://u/v1' } })).toEqual({ openai: { baseUrl: 'http://u/v1' } });
    expect(embedderOptionsOf({ embedderOptions: { 'word-bag': { dimension: 8 } } })).toEqual({
      'word-bag': { dimension: 8 },
    });
  });
});
