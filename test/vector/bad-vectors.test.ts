/**
 * Vectors that cannot be indexed, from a real HTTP server speaking Ollama's
 * API or an OpenAI-compatible one (see helpers/bad-embeddings.ts), and from
 * anything else through the shared check (vector/check.ts): each is an
 * EmbedderError INVALID_VECTORS that names the server, the problem and what
 * to do, at the first answer that has it, and is not retried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkDimension, checkVectors } from '../../src/vector/check.js';
import { EmbedderError } from '../../src/vector/embedder.js';
import { OllamaEmbedder } from '../../src/vector/ollama-embedder.js';
import { OpenAIEmbedder } from '../../src/vector/openai-embedder.js';
import type { RemoteEmbedder } from '../../src/vector/remote-embedder.js';
import { MISBEHAVIOURS, type Misbehaviour } from '../helpers/bad-embeddings.js';
import { fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { fakeOpenAIEmbeddingServer } from '../helpers/fake-openai.js';

const DIMENSION = 16;

/** What each misbehaviour reads as, after "the embedding server at <url> (<id>) ". */
const PROBLEMS: Record<Misbehaviour, RegExp> = {
  oversized: /answered vectors of 70000 dimensions; FAISS indexes at most 65536: nothing of this answer is used/,
  infinite: /answered a vector holding Infinity \(vector 1 of 2, value 1\): nothing of this answer is used/,
  zero: /answered an all-zero vector \(vector 2 of 2\), which matches nothing: nothing of this answer is used/,
  'changing-dimension':
    /answered vectors of 20 dimensions, not the 16 of its first answer: it now serves another model/,
};

interface Server {
  close(): Promise<void>;
  requests(): number;
  embedder(): RemoteEmbedder;
  url: string;
}

const servers: Record<'ollama' | 'openai', (misbehave: () => Misbehaviour | undefined) => Promise<Server>> = {
  ollama: async (misbehave) => {
    const fake = await fakeEmbeddingServer(DIMENSION, { misbehave });
    return {
      url: fake.url,
      close: () => fake.close(),
      requests: () => fake.embeds.length,
      embedder: () => new OllamaEmbedder({ host: fake.url, model: 'fake-embed' }),
    };
  },
  openai: async (misbehave) => {
    const fake = await fakeOpenAIEmbeddingServer(DIMENSION, { misbehave });
    return {
      url: fake.url,
      close: () => fake.close(),
      requests: () => fake.embeddingRequests.length,
      embedder: () => new OpenAIEmbedder({ baseUrl: fake.url, model: 'fake-embed' }),
    };
  },
};

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(['ollama', 'openai'] as const)('an embedding server (%s API) that misbehaves', (api) => {
  it.each(MISBEHAVIOURS)(
    '%s: INVALID_VECTORS naming the server, the problem and what to do, not retried',
    async (misbehaviour) => {
      let bad: Misbehaviour | undefined;
      server = await servers[api](() => bad);
      const embedder = server.embedder();
      await embedder.init(); // a good first answer: 16 dimensions
      expect(embedder.dimension).toBe(DIMENSION);
      bad = misbehaviour;
      const before = server.requests();
      const error = await embedder.embedDocuments(['function parseCsv', 'class Config']).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbedderError);
      expect((error as EmbedderError).code).toBe('INVALID_VECTORS');
      const message = (error as Error).message;
      expect(message.startsWith(`the embedding server at ${server.url} (${embedder.id}) `)).toBe(true);
      expect(message).toMatch(PROBLEMS[misbehaviour]);
      expect(message).toMatch(/--embedder builtin/);
      if (api === 'openai') expect(message).not.toMatch(/ollama/i);
      expect(server.requests() - before).toBe(1);
      // Still misbehaving: a query fails the same way rather than searching with a vector that matches nothing.
      await expect(embedder.embedQuery('parse')).rejects.toMatchObject({ code: 'INVALID_VECTORS' });
    },
  );

  it('a first answer of 70,000 dimensions fails init: the dimension is never learnt', async () => {
    server = await servers[api](() => 'oversized');
    const embedder = server.embedder();
    await expect(embedder.init()).rejects.toMatchObject({
      code: 'INVALID_VECTORS',
      message: expect.stringMatching(/answered vectors of 70000 dimensions; FAISS indexes at most 65536/),
    });
    expect(server.requests()).toBe(1);
    expect(() => embedder.dimension).toThrow(/call init\(\) first/);
  });
});

describe('the shared check, for embedders without a server', () => {
  const builtinLike = { id: 'fake:v1' };

  it('names the embedder, and says it is broken', () => {
    const nan = new Float32Array([1, 0, Number.NaN, 0]);
    expect(() => checkVectors(builtinLike, nan, { count: 2, dimension: 2 })).toThrow(
      /^the embedder fake:v1 answered a vector holding NaN \(vector 2 of 2, value 1\): nothing of this answer is used: the embedder is broken/,
    );
  });

  it('refuses a wrong count, all zeros (unless allowed), and dimensions FAISS cannot take', () => {
    const zero = new Float32Array([1, 0, 0, 0]);
    const error = (() => {
      try {
        checkVectors(builtinLike, zero, { count: 2, dimension: 2 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toMatchObject({
      code: 'INVALID_VECTORS',
      message: expect.stringMatching(/all-zero vector \(vector 2 of 2\)/),
    });
    expect(checkVectors(builtinLike, zero, { count: 2, dimension: 2, allowZero: true })).toBe(zero);
    expect(() => checkVectors(builtinLike, new Float32Array(6), { count: 2, dimension: 2 })).toThrow(
      /answered 6 values for 2 inputs of 2 dimensions \(4 expected\)/,
    );
    expect(() => checkVectors(builtinLike, [1, 0], { count: 1, dimension: 2 })).toThrow(
      /answered an array instead of vectors/,
    );
    expect(() => checkDimension(builtinLike, 70_000)).toThrow(
      /vectors of 70000 dimensions; FAISS indexes at most 65536/,
    );
    expect(() => checkDimension(builtinLike, 0)).toThrow(/vectors of 0 dimensions; FAISS indexes 1 to 65536/);
    expect(() => checkDimension(builtinLike, 384, { dimension: 768, from: 'the index' })).toThrow(
      /answered vectors of 384 dimensions, not the 768 of the index/,
    );
    expect(checkDimension(builtinLike, 65_536)).toBe(65_536);
  });
});
