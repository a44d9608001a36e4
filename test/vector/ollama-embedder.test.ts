import { afterEach, describe, expect, it } from 'vitest';
import { EmbedderError } from '../../src/vector/embedder.js';
import { ollamaHasModel } from '../../src/vector/choose.js';
import { OllamaEmbedder } from '../../src/vector/ollama-embedder.js';
import { FakeOllama, type Reply } from '../helpers/fake-ollama.js';

let fake: FakeOllama | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const inputs = (request: { input: string | string[] }) =>
  Array.isArray(request.input) ? request.input : [request.input];
const good = (request: { input: string | string[] }): Reply => ({
  body: { embeddings: inputs(request).map((text) => [text.length, 1, 0]) },
});

async function embedderWith(
  embed: (request: { input: string | string[] }, index: number) => Reply | Promise<Reply>,
  options: ConstructorParameters<typeof OllamaEmbedder>[0] = {},
) {
  fake = await FakeOllama.start({ embed });
  return new OllamaEmbedder({ host: fake.url, model: 'fake-embed', ...options });
}

describe('OllamaEmbedder', () => {
  it('detects the dimension, batches documents, and normalises the vectors', async () => {
    const embedder = await embedderWith(good, { batchSize: 3 });
    await embedder.init();
    expect(embedder.dimension).toBe(3);
    expect(embedder.id).toBe('ollama:fake-embed');
    const vectors = await embedder.embedDocuments(['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g']);
    expect(fake!.embeds.slice(1).map((r) => inputs(r).length)).toEqual([3, 3, 1]);
    expect(vectors.length).toBe(21);
    expect(Math.hypot(...vectors.subarray(3, 6))).toBeCloseTo(1, 6);
    expect(vectors[3]! / vectors[4]!).toBeCloseTo(2, 5); // [2, 1, 0] scaled
    expect(embedder.calls).toBe(4);
  });

  it('uses a known dimension without asking, and still checks answers against it', async () => {
    const embedder = await embedderWith(good);
    await embedder.init({ dimension: 5 });
    expect(fake!.embeds).toHaveLength(0);
    await expect(embedder.embedDocuments(['x'])).rejects.toMatchObject({
      code: 'INVALID_VECTORS',
      message: /answered vectors of 3 dimensions, not the 5 of the index: it now serves another model/,
    });
    expect(fake!.embeds).toHaveLength(1); // not retried: the next answer would be the same
  });

  it('cuts inputs longer than the context, and asks the server to truncate too', async () => {
    const embedder = await embedderWith(good, { contextTokens: 100 });
    await embedder.embedDocuments(['x'.repeat(100_000)]);
    const request = fake!.embeds.at(-1)! as unknown as {
      input: string[];
      truncate: boolean;
      options: { num_ctx: number };
    };
    expect(request.input[0]!.length).toBeLessThanOrEqual(300);
    expect(request.truncate).toBe(true);
    expect(request.options.num_ctx).toBe(100);
  });

  it('adds the prefixes nomic-embed-text expects', async () => {
    fake = await FakeOllama.start({ embed: good });
    const embedder = new OllamaEmbedder({ host: fake.url, model: 'nomic-embed-text' });
    await embedder.embedDocuments(['doc']);
    await embedder.embedQuery('query');
    expect(fake.embeds.slice(1).map((r) => inputs(r)[0])).toEqual(['search_document: doc', 'search_query: query']);
  });

  const failures: [string, (request: { input: string | string[] }) => Reply, RegExp, string][] = [
    ['a server error', () => ({ status: 500, body: { error: 'boom' } }), /HTTP 500/, 'SERVER_ERROR'],
    [
      'a missing model',
      () => ({ status: 404, body: { error: 'model "fake-embed" not found, try pulling it first' } }),
      /^the Ollama server at http:\/\/127\.0\.0\.1:\d+ has no model fake-embed: run `ollama pull fake-embed`.*--embedder builtin/,
      'MODEL_MISSING',
    ],
    ['too few vectors', () => ({ body: { embeddings: [] } }), /answered 0 embeddings for 1 inputs/, 'INVALID_RESPONSE'],
    ['no embeddings at all', () => ({ body: { nonsense: true } }), /answered no embeddings/, 'INVALID_RESPONSE'],
    [
      'non-numbers',
      (r) => ({ body: { embeddings: inputs(r).map(() => [1, 'two', 3]) } }),
      /non-numbers/,
      'INVALID_RESPONSE',
    ],
    ['a hang-up', () => ({ hangUp: true }), /cannot reach the Ollama server/, 'UNREACHABLE'],
    [
      'a body that is not JSON',
      () => ({ raw: '{"embeddings": [[1, 2' }),
      /gave an unusable answer: the Ollama server answered with something that is not JSON/,
      'INVALID_RESPONSE',
    ],
  ];

  it.each(failures)('turns %s into an EmbedderError', async (_, reply, message, code) => {
    const embedder = await embedderWith(reply);
    const error = await embedder.embedDocuments(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it('gives up on a slow server at the deadline, and on a dead one at once', async () => {
    const slow = await embedderWith(() => ({ delayMs: 2_000, body: { embeddings: [[1]] } }), { timeoutMs: 100 });
    const started = Date.now();
    await expect(slow.embedDocuments(['x'])).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(1_500);
    const dead = new OllamaEmbedder({ host: await FakeOllama.refusingUrl(), model: 'm' });
    await expect(dead.init()).rejects.toMatchObject({ code: 'UNREACHABLE', message: /ECONNREFUSED/ });
  });

  it('tells no server at the URL from a server without the model, naming the URL and what to do', async () => {
    const url = await FakeOllama.refusingUrl();
    const dead = new OllamaEmbedder({ host: url, model: 'm' });
    const error = (await dead.embedQuery('x').catch((e: unknown) => e)) as EmbedderError;
    expect(error.code).toBe('UNREACHABLE');
    expect(error.message.startsWith(`no Ollama server answers at ${url} (ECONNREFUSED)`)).toBe(true);
    expect(error.message).toMatch(/`ollama serve`.*--ollama-host.*--embedder builtin/);
    expect(error.message).not.toMatch(/ollama pull/);
  });

  it('stops reading an answer that never ends at its size cap, with memory to spare', async () => {
    const embedder = await embedderWith(() => ({ endless: { chunk: '[0.5, 0.5, 0.5],'.repeat(4_096) } }), {
      maxResponseBytes: 4 << 20,
    });
    const before = process.memoryUsage().rss;
    const started = Date.now();
    await expect(embedder.embedDocuments(['x'])).rejects.toMatchObject({
      code: 'INVALID_RESPONSE',
      message: expect.stringContaining('larger than 4194304 bytes'),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(512 << 20);
  });

  it('counts reading the answer against the deadline (a body that trickles forever)', async () => {
    const embedder = await embedderWith(() => ({ endless: { chunk: ' ', intervalMs: 20 } }), { timeoutMs: 300 });
    const started = Date.now();
    await expect(embedder.embedDocuments(['x'])).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('asks the server for its models through the same capped client', async () => {
    fake = await FakeOllama.start({ models: ['nomic-embed-text:latest', 'qwen2.5-coder:7b'] });
    expect(await ollamaHasModel(fake.url, 'nomic-embed-text')).toBe(true);
    expect(await ollamaHasModel(fake.url, 'qwen2.5-coder:7b')).toBe(true);
    expect(await ollamaHasModel(fake.url, 'llama3')).toBe(false);
    expect(await ollamaHasModel(await FakeOllama.refusingUrl(), 'nomic-embed-text')).toBe(false);
  });

  it('stops calling after repeated failures (circuit breaker)', async () => {
    const embedder = await embedderWith(() => ({ status: 500, body: { error: 'down' } }), { failureThreshold: 3 });
    await embedder.init({ dimension: 3 });
    await expect(embedder.embedDocuments(['a'])).rejects.toMatchObject({ code: 'SERVER_ERROR' });
    await expect(embedder.embedDocuments(['b'])).rejects.toMatchObject({ code: 'CIRCUIT_OPEN' });
    const calls = fake!.embeds.length;
    await expect(embedder.embedQuery('c')).rejects.toMatchObject({ code: 'CIRCUIT_OPEN' });
    expect(fake!.embeds.length).toBe(calls);
  });

  it('cuts inputs the server calls too long for the model and sends them again, as a real Ollama needs', async () => {
    // A real Ollama (v0.24) with all-MiniLM answers this for text with accents, although it is asked to truncate.
    const tooLong = { status: 400, body: { error: 'the input length exceeds the context length' } };
    const embedder = await embedderWith(
      (request) => (inputs(request).some((text) => text.length > 300) ? tooLong : good(request)),
      {
        failureThreshold: 2,
      },
    );
    await embedder.init({ dimension: 3 });
    const long = 'café naïve 日本語 '.repeat(100);
    const vectors = await embedder.embedDocuments([long, 'short', long]);
    expect(vectors).toHaveLength(9);
    const last = inputs(fake!.embeds.at(-1)!);
    expect(last.map((text) => text.length)).toEqual(
      [long.length, 5, long.length].map((n) => Math.min(n, last[0]!.length)),
    );
    expect(last[0]!.length).toBeLessThanOrEqual(300);
    expect(long.startsWith(last[0]!)).toBe(true);
    // Cutting is not a failure of the server: the breaker stays closed.
    await embedder.embedDocuments([long]);
    await embedder.embedDocuments([long]);
    expect(await embedder.embedQuery('short')).toHaveLength(3);
  });

  it('gives up on an input the server refuses however short, with the words of the server', async () => {
    const embedder = await embedderWith(() => ({
      status: 400,
      body: { error: 'the input length exceeds the context length' },
    }));
    await embedder.init({ dimension: 3 });
    await expect(embedder.embedDocuments(['x'.repeat(1_000)])).rejects.toMatchObject({
      code: 'INPUT_TOO_LONG',
      message: expect.stringMatching(/HTTP 400: the input length exceeds the context length/),
    });
    // Halved from 1,000 characters down to the floor, then sent twice there: a bounded number of requests.
    expect(fake!.embeds.length).toBeLessThanOrEqual(9);
  });

  it('stops at an abort signal', async () => {
    const embedder = await embedderWith(() => ({ delayMs: 5_000, body: { embeddings: [[1]] } }));
    await embedder.init({ dimension: 1 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(embedder.embedDocuments(['x'], controller.signal)).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
