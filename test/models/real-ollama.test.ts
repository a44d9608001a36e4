/**
 * ocvector's embedders against a real Ollama serving real weights (test/helpers/real-ollama.ts):
 * all-MiniLM-L6-v2 through Ollama's /api/embed and through its OpenAI-compatible /v1/embeddings,
 * and the chat model answering JSON under a `format` schema.
 *
 * Where `npm run models` has not prepared them, each test here is reported as skipped, with the
 * helper's note saying so and how to prepare them (the closing summary line prints it).
 */
import { afterAll, describe, expect } from 'vitest';
import { ollamaClient } from '../../src/models/ollama-client.js';
import { embedderFromId } from '../../src/vector/choose.js';
import { realModelTests, startRealOllama } from '../helpers/real-ollama.js';

const started = await startRealOllama();
const it = realModelTests(started);

/** Cosine similarity of rows a and b of a row-major matrix of unit rows. */
function cosine(rows: Float32Array, dimension: number, a: number, b: number): number {
  let dot = 0;
  for (let i = 0; i < dimension; i++) dot += (rows[a * dimension + i] ?? 0) * (rows[b * dimension + i] ?? 0);
  return dot;
}

const TEXTS = [
  'read the configuration from a JSON file',
  'load settings by parsing a JSON config file',
  'the cat sat on the mat in the sunshine',
];

afterAll(() => started.ollama?.stop());

const models = started.ollama ? `${started.ollama.llm}, ${started.ollama.embedder}` : 'not prepared here';
describe(`a real Ollama (${models})`, () => {
  it('embeds through the Ollama embedder: 384 dimensions, similar texts closer than unrelated ones', async ({
    host,
    embedder,
  }) => {
    const model = embedderFromId(`ollama:${embedder}`, { ollama: { host } });
    if (!model) throw new Error('no embedder for an ollama: id');
    await model.init();
    expect(model.dimension).toBe(384);
    const rows = await model.embedDocuments(TEXTS);
    expect(rows.length).toBe(TEXTS.length * 384);
    expect(cosine(rows, 384, 0, 1)).toBeGreaterThan(cosine(rows, 384, 0, 2) + 0.2);
    const query = await model.embedQuery('parse JSON configuration');
    expect(cosine(new Float32Array([...query, ...rows]), 384, 0, 1)).toBeGreaterThan(
      cosine(new Float32Array([...query, ...rows]), 384, 0, 3),
    );
  });

  it('embeds an element longer than the model takes, accents and CJK in it (the server refuses its own truncation)', async ({
    host,
    embedder,
  }) => {
    const model = embedderFromId(`ollama:${embedder}`, { ollama: { host } });
    if (!model) throw new Error('no embedder for an ollama: id');
    const comment = '// café, naïve, 日本語のコメント: déjà vu\n'.repeat(120);
    const rows = await model.embedDocuments([`${comment}function greet() {}`, 'function greet() {}']);
    expect(rows.length).toBe(2 * 384);
    expect(rows.every(Number.isFinite)).toBe(true);
  });

  it('embeds through the OpenAI-compatible embedder at the same server (/v1): the same vectors', async ({
    host,
    embedder,
  }) => {
    const viaOllama = embedderFromId(`ollama:${embedder}`, { ollama: { host } });
    const viaOpenAI = embedderFromId(`openai:${embedder}`, { openai: { baseUrl: `${host}/v1` } });
    if (!viaOllama || !viaOpenAI) throw new Error('no embedder for an ollama: or openai: id');
    const [a, b] = await Promise.all([viaOllama.embedDocuments(TEXTS), viaOpenAI.embedDocuments(TEXTS)]);
    expect(viaOpenAI.dimension).toBe(384);
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i] ?? Number.NaN, 3);
  });

  it('answers a chat as JSON that fits the `format` schema', async ({ host, llm }) => {
    const schema = {
      type: 'object',
      properties: { language: { type: 'string' }, functions: { type: 'array', items: { type: 'string' } } },
      required: ['language', 'functions'],
    };
    const answer = await ollamaClient(host, { timeoutMs: 120_000 }).chat({
      model: llm,
      stream: false,
      format: schema,
      options: { temperature: 0, num_predict: 128 },
      messages: [
        {
          role: 'user',
          content:
            'Which language is this, and which functions does it define? Answer in JSON.\n\ndef add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n',
        },
      ],
    });
    const json = JSON.parse(answer.message.content) as { language: unknown; functions: unknown };
    expect(typeof json.language).toBe('string');
    expect(Array.isArray(json.functions)).toBe(true);
  });
});
