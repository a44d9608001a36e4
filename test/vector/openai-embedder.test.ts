import { afterEach, describe, expect, it } from 'vitest';
import { chooseEmbedder, embedderFromId } from '../../src/vector/choose.js';
import { EmbedderError } from '../../src/vector/embedder.js';
import { OllamaEmbedder } from '../../src/vector/ollama-embedder.js';
import { OpenAIEmbedder, type OpenAIEmbedderOptions } from '../../src/vector/openai-embedder.js';
import { FakeOpenAI, type EmbeddingsRequest, type Reply } from '../helpers/fake-openai.js';
import { ScriptedServer } from '../helpers/scripted-server.js';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const inputs = (request: EmbeddingsRequest) => [request.input].flat();
/** [length, 1, 0] per input: distinct, and easy to check after normalisation. */
const good = (request: EmbeddingsRequest): Reply => ({ vectors: inputs(request).map((text) => [text.length, 1, 0]) });

async function embedderWith(
  embeddings: (request: EmbeddingsRequest, index: number) => Reply | Promise<Reply>,
  options: Partial<OpenAIEmbedderOptions> = {},
  server: { models?: string[]; apiKey?: string } = {},
) {
  fake = await FakeOpenAI.start({ embeddings, ...server });
  return new OpenAIEmbedder({ baseUrl: fake.url, model: 'fake-embed', ...options });
}

describe('OpenAIEmbedder', () => {
  it('detects the dimension, batches documents, normalises the vectors, and records its server', async () => {
    const embedder = await embedderWith(good, { batchSize: 3 });
    await embedder.init();
    expect(embedder.dimension).toBe(3);
    expect(embedder.id).toBe('openai:fake-embed');
    expect(embedder.host).toBe(fake!.url);
    const vectors = await embedder.embedDocuments(['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g']);
    expect(fake!.embeddingRequests.slice(1).map((r) => inputs(r).length)).toEqual([3, 3, 1]);
    expect(fake!.embeddingRequests[1]).toEqual({ model: 'fake-embed', input: ['a', 'bb', 'ccc'] });
    expect(vectors.length).toBe(21);
    for (let row = 0; row < 7; row++) expect(Math.hypot(...vectors.subarray(row * 3, row * 3 + 3))).toBeCloseTo(1, 6);
    expect(vectors[3]! / vectors[4]!).toBeCloseTo(2, 5); // [2, 1, 0] scaled
    expect(embedder.calls).toBe(4);
    expect(fake!.headers.every((headers) => headers.authorization === undefined)).toBe(true);
  });

  it('puts the vectors in the order of data[i].index, whatever order the server answers in', async () => {
    const reversed = (request: EmbeddingsRequest): Reply => ({
      body: {
        object: 'list',
        data: inputs(request)
          .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 1, 0] }))
          .reverse(),
      },
    });
    const embedder = await embedderWith(reversed);
    const vectors = await embedder.embedDocuments(['a', 'bbbb']);
    expect(vectors[0]! / vectors[1]!).toBeCloseTo(1, 5); // 'a': [1, 1, 0]
    expect(vectors[3]! / vectors[4]!).toBeCloseTo(4, 5); // 'bbbb': [4, 1, 0]
  });

  it('sends the API key as a bearer token, and a server that has one accepts it', async () => {
    const embedder = await embedderWith(good, { apiKey: 'sk-test-123' }, { apiKey: 'sk-test-123' });
    await embedder.embedQuery('x');
    expect(fake!.headers.map((headers) => headers.authorization)).toEqual(['Bearer sk-test-123', 'Bearer sk-test-123']);
  });

  it('tells a missing key from a wrong one (401), naming the variable and never the key', async () => {
    const without = await embedderWith(good, {}, { apiKey: 'sk-right' });
    const missing = (await without.embedQuery('x').catch((e: unknown) => e)) as EmbedderError;
    expect(missing).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(missing.message).toMatch(/^the server at http:\/\/127\.0\.0\.1:\d+\/v1 refused the request \(HTTP 401: /);
    expect(missing.message).toMatch(/it wants an API key: set OCVECTOR_API_KEY/);
    expect(fake!.embeddingRequests).toHaveLength(0); // not retried: the next request would fail the same way
    const wrong = new OpenAIEmbedder({ baseUrl: fake!.url, model: 'fake-embed', apiKey: 'sk-wrong-secret' });
    const refused = (await wrong.embedQuery('x').catch((e: unknown) => e)) as EmbedderError;
    expect(refused).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/check the API key given/) });
    expect(refused.message).not.toContain('sk-wrong-secret');
  });

  it('a model the server does not serve: MODEL_MISSING naming the model, the URL and what it serves, never ollama', async () => {
    const embedder = await embedderWith(good, { model: 'nomic-embed-text' }, { models: ['bge-m3', 'e5-small'] });
    const error = (await embedder.embedQuery('x').catch((e: unknown) => e)) as EmbedderError;
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error.code).toBe('MODEL_MISSING');
    expect(error.message).toContain(`the server at ${fake!.url} has no embedding model nomic-embed-text (HTTP 404: `);
    expect(error.message).toMatch(/check the model name it serves \(it lists bge-m3, e5-small\)/);
    expect(error.message).not.toMatch(/ollama/i);
  });

  it('no server at the URL: UNREACHABLE naming the URL and the flag, never ollama', async () => {
    const url = `${await ScriptedServer.refusingUrl()}/v1`;
    const error = (await new OpenAIEmbedder({ baseUrl: url, model: 'm' })
      .init()
      .catch((e: unknown) => e)) as EmbedderError;
    expect(error.code).toBe('UNREACHABLE');
    expect(error.message.startsWith(`no server answers at ${url} (ECONNREFUSED)`)).toBe(true);
    expect(error.message).toMatch(/--openai-base-url.*--embedder builtin/);
    expect(error.message).not.toMatch(/ollama/i);
  });

  const failures: [string, (request: EmbeddingsRequest) => Reply, RegExp, string][] = [
    ['a server error', () => ({ status: 500, body: { error: { message: 'boom' } } }), /HTTP 500: boom/, 'SERVER_ERROR'],
    [
      'a 503 with a text body',
      () => ({ status: 503, raw: 'Service Unavailable' }),
      /HTTP 503: Service Unavailable/,
      'SERVER_ERROR',
    ],
    ['a body that is not JSON', () => ({ raw: '{"data": [{"embedding": [1, 2' }), /not JSON/, 'INVALID_RESPONSE'],
    ['too few vectors', () => ({ vectors: [] }), /answered 0 embeddings for 1 inputs/, 'INVALID_RESPONSE'],
    ['no data at all', () => ({ body: { object: 'list' } }), /answered no embeddings/, 'INVALID_RESPONSE'],
    [
      'non-numbers',
      (r) => ({ vectors: inputs(r).map(() => [1, 'two', 3] as unknown as number[]) }),
      /non-numbers/,
      'INVALID_RESPONSE',
    ],
    [
      'numbers that are not finite',
      () => ({ raw: '{"data": [{"index": 0, "embedding": [1e999, 0, 1]}]}' }),
      /answered a vector holding Infinity \(its only vector, value 1\)/,
      'INVALID_VECTORS',
    ],
    [
      'a number too large for a float32',
      () => ({ raw: '{"data": [{"index": 0, "embedding": [0, 1e39, 1]}]}' }),
      /answered a vector holding Infinity \(its only vector, value 2\)/,
      'INVALID_VECTORS',
    ],
    [
      'an index twice',
      (r) => ({ body: { data: inputs(r).flatMap(() => [0, 0].map((index) => ({ index, embedding: [1, 0, 0] }))) } }),
      /indexes that are not 0 to 1 once each/,
      'INVALID_RESPONSE',
    ],
    [
      'a hang-up',
      () => ({ hangUp: true }),
      /^cannot reach the server at http:\/\/127\.0\.0\.1:\d+\/v1 for embeddings/,
      'UNREACHABLE',
    ],
  ];

  it.each(failures)('turns %s into an EmbedderError', async (_, reply, message, code) => {
    const embedder = await embedderWith(reply);
    const error = await embedder.embedDocuments(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderError);
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect((error as Error).message).not.toMatch(/ollama/i);
  });

  it('checks every answer against the known dimension', async () => {
    const embedder = await embedderWith(good);
    await embedder.init({ dimension: 5 });
    expect(fake!.embeddingRequests).toHaveLength(0);
    await expect(embedder.embedDocuments(['x'])).rejects.toMatchObject({
      code: 'INVALID_VECTORS',
      message: /answered vectors of 3 dimensions, not the 5 of the index/,
    });
  });

  it('gives up on a slow server at the deadline, and on a body that trickles forever', async () => {
    const slow = await embedderWith(() => ({ delayMs: 2_000, vectors: [[1]] }), { timeoutMs: 100 });
    const started = Date.now();
    await expect(slow.embedDocuments(['x'])).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(
        /^the embedding model fake-embed at http:\/\/127\.0\.0\.1:\d+\/v1 did not answer in time/,
      ),
    });
    expect(Date.now() - started).toBeLessThan(1_500);
    await fake!.close();
    const trickle = await embedderWith(() => ({ endless: { chunk: ' ', intervalMs: 20 } }), { timeoutMs: 300 });
    await expect(trickle.embedDocuments(['x'])).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('stops reading an answer that never ends at its size cap', async () => {
    const embedder = await embedderWith(
      () => ({ endless: { chunk: '{"index": 0, "embedding": [0.5, 0.5]},'.repeat(2_048) } }),
      {
        maxResponseBytes: 2 << 20,
      },
    );
    const started = Date.now();
    await expect(embedder.embedDocuments(['x'])).rejects.toMatchObject({
      code: 'INVALID_RESPONSE',
      message: expect.stringContaining('larger than 2097152 bytes'),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stops calling after repeated failures (circuit breaker)', async () => {
    const embedder = await embedderWith(() => ({ status: 500, body: { error: { message: 'down' } } }), {
      failureThreshold: 3,
    });
    await embedder.init({ dimension: 3 });
    await expect(embedder.embedDocuments(['a'])).rejects.toMatchObject({ code: 'SERVER_ERROR' });
    await expect(embedder.embedDocuments(['b'])).rejects.toMatchObject({ code: 'CIRCUIT_OPEN' });
    const calls = fake!.embeddingRequests.length;
    await expect(embedder.embedQuery('c')).rejects.toMatchObject({ code: 'CIRCUIT_OPEN' });
    expect(fake!.embeddingRequests.length).toBe(calls);
  });

  it('refuses options it cannot work with, saying what is missing', () => {
    const make = (options: OpenAIEmbedderOptions) => () => new OpenAIEmbedder(options);
    expect(make({ model: 'm' })).toThrow(
      expect.objectContaining({ code: 'NOT_CONFIGURED', message: expect.stringMatching(/base URL/) }),
    );
    expect(make({ baseUrl: 'http://127.0.0.1:8080/v1' })).toThrow(/needs the model name/);
    expect(make({ baseUrl: 'ftp://host/v1', model: 'm' })).toThrow(/must be http or https/);
    expect(make({ baseUrl: 'http://user:sk-secret@host/v1', model: 'm' })).toThrow(
      /must not carry credentials.*OCVECTOR_API_KEY/,
    );
    expect(new OpenAIEmbedder({ baseUrl: 'http://127.0.0.1:8080/v1/', model: 'm' }).host).toBe(
      'http://127.0.0.1:8080/v1',
    );
  });
});

describe('choosing an OpenAI-compatible embedder', () => {
  it('is made from a recorded id at the base URL given, and refused without one, naming the option', () => {
    const embedder = embedderFromId('openai:bge-m3', { openai: { baseUrl: 'http://gpu-box:8080/v1', apiKey: 'k' } });
    expect(embedder).toBeInstanceOf(OpenAIEmbedder);
    expect(embedder).toMatchObject({ id: 'openai:bge-m3', host: 'http://gpu-box:8080/v1' });
    expect(() => embedderFromId('openai:bge-m3', { openai: { apiKey: 'k' } })).toThrow(
      expect.objectContaining({ code: 'NOT_CONFIGURED', message: expect.stringMatching(/--openai-base-url/) }),
    );
  });

  it('keeps each kind to its own address: an Ollama index never gets the OpenAI URL, nor the reverse', () => {
    const servers = { ollama: { host: 'http://ollama-box:11434' }, openai: { baseUrl: 'http://gpu-box:8080/v1' } };
    expect(embedderFromId('ollama:nomic-embed-text', servers)).toBeInstanceOf(OllamaEmbedder);
    expect(embedderFromId('ollama:nomic-embed-text', servers)?.host).toBe('http://ollama-box:11434');
    expect(embedderFromId('openai:nomic-embed-text', servers)?.host).toBe('http://gpu-box:8080/v1');
    expect(() => embedderFromId('openai:nomic-embed-text', { ollama: { host: 'http://ollama-box:11434' } })).toThrow(
      expect.objectContaining({ code: 'NOT_CONFIGURED' }),
    );
  });

  it('is made when asked for by name or by options, and never by auto', async () => {
    const asked = await chooseEmbedder('openai', undefined, {
      openai: { baseUrl: 'http://gpu-box:8080/v1', model: 'e5' },
    });
    expect(asked).toMatchObject({ id: 'openai:e5', host: 'http://gpu-box:8080/v1' });
    const byOptions = await chooseEmbedder(
      { kind: 'openai', baseUrl: 'http://gpu-box:8080/v1', model: 'e5' },
      undefined,
    );
    expect(byOptions).toBeInstanceOf(OpenAIEmbedder);
    fake = await FakeOpenAI.start({ embeddings: good });
    // auto asks a (here absent) Ollama server only: the OpenAI-compatible one hears nothing.
    const auto = await chooseEmbedder('auto', undefined, {
      ollama: { host: await ScriptedServer.refusingUrl() },
      openai: { baseUrl: fake.url, model: 'fake-embed' },
    });
    expect(auto.id).toMatch(/^builtin:/);
    expect(fake.headers).toHaveLength(0);
  });
});
