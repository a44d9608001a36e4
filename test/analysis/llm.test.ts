import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Analyzer,
  MemoryAnalysisCache,
  OllamaEnricher,
  RESULT_SCHEMA,
  analyzeText,
  resolveOllamaHost,
  type AnalysisEvent,
  type CodeFile,
  type OllamaEnricherOptions,
} from '../../src/internal.js';
import { OpenAIEnricher, type OpenAIEnricherOptions } from '../../src/analysis/llm/openai-enricher.js';
import { strictSchema, withoutNulls } from '../../src/analysis/llm/strict-schema.js';
import { FakeOllama, type Reply } from '../helpers/fake-ollama.js';
import { FakeOpenAI, type Reply as OpenAIReply } from '../helpers/fake-openai.js';

const text = readFileSync(new URL('../fixtures/analysis/faiss-index.ts.txt', import.meta.url), 'utf8');
const path = 'src/native/faiss-index.ts';
const astOnly = analyzeText(path, text);

/** What a good model answers: every element the tree has, with descriptions and relations. */
function goodAnswer(file: CodeFile = astOnly, shiftLines = 0): string {
  return JSON.stringify({
    'file-path': file.path,
    language: 'typescript',
    summary: 'MODEL SUMMARY: a typed facade over the native FAISS index.',
    imports: file.imports,
    elements: file.elements.map((e) => ({
      'property-type': e.type,
      name: e.name,
      'access-modifier': e.access,
      'start-line': e.startLine + shiftLines,
      'end-line': e.endLine + shiftLines,
      signature: e.signature,
      description: `MODEL: what ${e.name} does.`,
      dependencies: [{ type: 'references', target: `Model${e.name}` }],
    })),
  });
}

let server: FakeOllama | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function enricherFor(chat: (index: number, prompt: string) => Reply, options: OllamaEnricherOptions = {}) {
  server = await FakeOllama.start({ chat: (request, index) => chat(index, request.messages[0]!.content) });
  const events: AnalysisEvent[] = [];
  const enricher = new OllamaEnricher({
    host: server.url,
    model: 'test-model',
    timeoutMs: 5_000,
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { enricher, events, server };
}

describe('a good answer enriches the syntax tree', () => {
  it('adds descriptions where the code has none, keeps doc comments, merges relations', async () => {
    const { enricher, events, server: fake } = await enricherFor(() => ({ content: goodAnswer() }));
    const file = await enricher.enrich(astOnly, text);

    expect(file.source).toBe('ast+llm');
    expect(file.elements.map((e) => [e.name, e.startLine, e.endLine])).toEqual(
      astOnly.elements.map((e) => [e.name, e.startLine, e.endLine]),
    );
    const cls = file.elements.find((e) => e.name === 'FaissIndex')!;
    expect(cls.description).toBe('MODEL: what FaissIndex does.');
    const search = file.elements.find((e) => e.name === 'search')!;
    expect(search.description).toBe('k nearest neighbours of each query row; see {@link SearchResult}.');
    expect(search.dependencies).toEqual(
      expect.arrayContaining([
        { type: 'calls', target: 'checkVectors' },
        { type: 'references', target: 'Modelsearch' },
      ]),
    );
    expect(file.summary).toMatch(/^FaissIndex: a FAISS index/); // the file's own doc comment wins
    expect(events).toEqual([
      { type: 'llm-enriched', path, matched: astOnly.elements.length, dropped: 0, parts: 1, cached: false },
    ]);

    const request = fake.chats[0]!;
    expect(request.model).toBe('test-model');
    expect(request.format).toEqual(RESULT_SCHEMA);
    expect(request.options).toMatchObject({ temperature: 0 });
    expect(request.stream).toBe(false);
    expect(request.messages[0]!.content).toContain('66| export class FaissIndex {');
  });

  it('caches by model, prompt and content: an unchanged file never reaches the model again', async () => {
    const cache = new MemoryAnalysisCache();
    const { enricher, events, server: fake } = await enricherFor(() => ({ content: goodAnswer() }), { cache });
    const first = await enricher.enrich(astOnly, text);
    const second = await enricher.enrich(astOnly, text);
    expect(second).toEqual(first);
    expect(fake.chats).toHaveLength(1);
    expect(enricher.calls).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'llm-enriched', cached: true });
    const otherModel = new OllamaEnricher({ host: fake.url, model: 'another-model', cache });
    await otherModel.enrich(astOnly, text);
    expect(fake.chats).toHaveLength(2);
  });

  it('a file too large for the context is analysed in parts, at top-level elements', async () => {
    // Like a real model, answer for the lines of the part only.
    const partAnswer = (_index: number, prompt: string) => {
      const [, first, last] = /lines (\d+)-(\d+) of the file/.exec(prompt)!.map(Number);
      const answer = JSON.parse(goodAnswer());
      answer.elements = answer.elements.filter(
        (e: { 'start-line': number }) => e['start-line'] >= first! && e['start-line'] <= last!,
      );
      return { content: JSON.stringify(answer) };
    };
    const { enricher, events, server: fake } = await enricherFor(partAnswer, { contextTokens: 2_600 });
    const file = await enricher.enrich(astOnly, text);
    expect(fake.chats.length).toBeGreaterThan(1);
    const prompts = fake.chats.map((c) => c.messages[0]!.content);
    prompts.forEach((prompt, i) => expect(prompt).toContain(`Part ${i + 1} of ${prompts.length}: lines`));
    // Every line of the file is in exactly one part.
    const cited = prompts.flatMap((p) => [...p.matchAll(/^(\d+)\| /gm)].map((m) => Number(m[1])));
    expect(cited).toEqual(Array.from({ length: text.split('\n').length }, (_, i) => i + 1));
    expect(file.source).toBe('ast+llm');
    expect(events.at(-1)).toMatchObject({
      type: 'llm-enriched',
      parts: fake.chats.length,
      matched: astOnly.elements.length,
      dropped: 0,
    });
  });
});

describe('every failure ends in the AST result, with the fallback reported', () => {
  async function expectFallback(reply: (index: number) => Reply, reason: string, options: OllamaEnricherOptions = {}) {
    const { enricher, events } = await enricherFor(reply, options);
    const file = await enricher.enrich(astOnly, text);
    expect(file).toEqual(astOnly);
    expect(events).toContainEqual(expect.objectContaining({ type: 'llm-fallback', path, reason }));
    return { enricher, events };
  }

  it('invalid JSON, twice (one retry)', async () => {
    await expectFallback(() => ({ content: '{"file-path": "x", "elements": [' }), 'invalid-json');
    expect(server!.chats).toHaveLength(2);
  });

  it('invalid JSON once, then a good answer: the retry succeeds', async () => {
    const { enricher } = await enricherFor((i) => ({
      content: i === 0 ? 'Sure! Here is the JSON you asked for:' : goodAnswer(),
    }));
    expect((await enricher.enrich(astOnly, text)).source).toBe('ast+llm');
  });

  it('an answer that breaks the schema', async () => {
    const { events } = await expectFallback(
      () => ({ content: JSON.stringify({ summary: 'no elements here', elements: [{ name: 3 }] }) }),
      'schema-violation',
    );
    expect(events.find((e) => e.type === 'llm-fallback')).toMatchObject({
      detail: expect.stringMatching(/must have required property/),
    });
  });

  it('invented elements are dropped and counted; an answer of only inventions is refused', async () => {
    const answer = JSON.parse(goodAnswer());
    answer.elements.push({ ...answer.elements[0], name: 'InventedHelper', 'start-line': 3, 'end-line': 9 });
    const { enricher, events } = await enricherFor(() => ({ content: JSON.stringify(answer) }));
    const file = await enricher.enrich(astOnly, text);
    expect(file.elements.some((e) => e.name === 'InventedHelper')).toBe(false);
    expect(events).toEqual([
      expect.objectContaining({ type: 'llm-enriched', matched: astOnly.elements.length, dropped: 1 }),
    ]);
    await server!.close();
    answer.elements = answer.elements.map((e: { name: string }, i: number) => ({ ...e, name: `Invented${i}` }));
    await expectFallback(() => ({ content: JSON.stringify(answer) }), 'mismatch');
  });

  it('wrong line numbers', async () => {
    await expectFallback(() => ({ content: goodAnswer(astOnly, 40) }), 'mismatch');
  });

  it('an HTTP 500', async () => {
    await expectFallback(() => ({ status: 500, body: { error: 'model runner crashed' } }), 'server-error');
  });

  it('a server slower than the timeout', async () => {
    const started = performance.now();
    await expectFallback(() => ({ content: goodAnswer(), delayMs: 3_000 }), 'timeout', { timeoutMs: 300 });
    expect(performance.now() - started).toBeLessThan(2_500);
  });

  it('a connection that is refused', async () => {
    const events: AnalysisEvent[] = [];
    const enricher = new OllamaEnricher({ host: await FakeOllama.refusingUrl(), onEvent: (e) => events.push(e) });
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'llm-fallback',
        reason: 'unreachable',
        detail: expect.stringMatching(/ECONNREFUSED/),
      }),
    ]);
  });

  it('a connection the server drops', async () => {
    await expectFallback(() => ({ hangUp: true }), 'unreachable');
  });

  it('a body that is not JSON: the server was reached, its answer is unusable', async () => {
    await expectFallback(() => ({ raw: '{"message": {"content": "' }), 'invalid-response');
  });

  it('an answer that never ends, stopped at the size cap', async () => {
    await expectFallback(() => ({ endless: { chunk: 'x'.repeat(65_536) } }), 'invalid-response', {
      maxResponseBytes: 1 << 20,
    });
  });

  it('after 3 failures in a row the circuit opens: no more calls in this run', async () => {
    const {
      enricher,
      events,
      server: fake,
    } = await enricherFor(() => ({ status: 503, body: { error: 'overloaded' } }));
    for (let i = 0; i < 5; i++) expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(fake.chats).toHaveLength(3);
    expect(events.filter((e) => e.type === 'llm-circuit-open')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'llm-fallback').map((e) => (e as { reason: string }).reason)).toEqual([
      'server-error',
      'server-error',
      'server-error',
      'circuit-open',
      'circuit-open',
    ]);
  });

  it('an aborted run stops without waiting for the model', async () => {
    const controller = new AbortController();
    const { enricher, events } = await enricherFor(() => ({ content: goodAnswer(), delayMs: 5_000 }), {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(events).toContainEqual(expect.objectContaining({ type: 'llm-fallback', reason: 'aborted' }));
  });
});

describe('the Analyzer with an enricher', () => {
  it('enriches code files and leaves the rest to the splitters', async () => {
    server = await FakeOllama.start({ chat: () => ({ content: goodAnswer() }) });
    const analyzer = new Analyzer({ enricher: new OllamaEnricher({ host: server.url }) });
    const code = await analyzer.analyzeBytes(path, Buffer.from(text));
    expect(code).toMatchObject({ source: 'ast+llm' });
    const markdown = await analyzer.analyzeBytes('README.md', Buffer.from('# Title\n\nText.\n'));
    expect(markdown).toMatchObject({ source: 'text' });
    expect(server.chats).toHaveLength(1);
  });
});

describe('configuration', () => {
  it('reads OLLAMA_HOST the way the ollama CLI does', () => {
    expect(resolveOllamaHost(undefined)).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost('')).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost('gpu-box')).toBe('http://gpu-box:11434');
    expect(resolveOllamaHost('0.0.0.0:8080')).toBe('http://127.0.0.1:8080');
    expect(resolveOllamaHost('https://ollama.example.com')).toBe('https://ollama.example.com');
  });
});

describe('the on/off switch', () => {
  it('llm: false (the CLIs: --no-llm, OCVECTOR_LLM=off) makes no model calls at all', async () => {
    server = await FakeOllama.start({ chat: () => ({ content: goodAnswer() }) });
    const { createAnalyzer } = await import('../../src/internal.js');
    const off = createAnalyzer({ llm: false });
    expect(off.enricher).toBeUndefined();
    expect(await off.analyzer.analyzeBytes(path, Buffer.from(text))).toEqual(astOnly);
    const on = createAnalyzer({ llm: { host: server.url } });
    expect(await on.analyzer.analyzeBytes(path, Buffer.from(text))).toMatchObject({ source: 'ast+llm' });
    expect(server.chats).toHaveLength(1);
  });
});

describe('an OpenAI-compatible server (/v1/chat/completions)', () => {
  let openai: FakeOpenAI | undefined;
  afterEach(async () => {
    await openai?.close();
    openai = undefined;
  });

  async function openAIEnricherFor(chat: (index: number) => OpenAIReply, options: Partial<OpenAIEnricherOptions> = {}) {
    openai = await FakeOpenAI.start({ chat: (_, index) => chat(index), models: ['coder'], apiKey: 'sk-test' });
    const events: AnalysisEvent[] = [];
    const enricher = new OpenAIEnricher({
      baseUrl: openai.url,
      model: 'coder',
      apiKey: 'sk-test',
      timeoutMs: 5_000,
      onEvent: (e) => events.push(e),
      ...options,
    });
    return { enricher, events, fake: openai };
  }

  it('asks with a strict json_schema response format and enriches the syntax tree with the answer', async () => {
    const { enricher, events, fake } = await openAIEnricherFor(() => ({ content: goodAnswer() }));
    const file = await enricher.enrich(astOnly, text);
    expect(file.source).toBe('ast+llm');
    expect(file.elements.find((e) => e.name === 'FaissIndex')!.description).toBe('MODEL: what FaissIndex does.');
    expect(events).toEqual([
      { type: 'llm-enriched', path, matched: astOnly.elements.length, dropped: 0, parts: 1, cached: false },
    ]);
    const request = fake.chats[0]!;
    expect(request).toMatchObject({ model: 'coder', temperature: 0, stream: false });
    expect(request.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'ocvector_analysis', schema: strictSchema(RESULT_SCHEMA), strict: true },
    });
    expect(request.messages[0]!.content).toContain('66| export class FaissIndex {');
    expect(fake.headers[0]!.authorization).toBe('Bearer sk-test');
    expect(enricher.calls).toBe(1);
  });

  it('takes a strict answer, with null for what it leaves out', async () => {
    const answer = JSON.parse(goodAnswer());
    for (const element of answer.elements) Object.assign(element, { parameters: null, 'return-type': null });
    const { enricher } = await openAIEnricherFor(() => ({ content: JSON.stringify(answer) }));
    expect((await enricher.enrich(astOnly, text)).source).toBe('ast+llm');
  });

  it('invalid JSON, twice: the syntax tree stands, as with Ollama', async () => {
    const { enricher, events, fake } = await openAIEnricherFor(() => ({ content: '{"file-path": "x", "elements": [' }));
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(fake.chats).toHaveLength(2);
    expect(events).toContainEqual(expect.objectContaining({ type: 'llm-fallback', path, reason: 'invalid-json' }));
  });

  it('a refusal is a bad answer: retried once, then the syntax tree stands', async () => {
    const { enricher, events, fake } = await openAIEnricherFor((i) =>
      i === 0 ? { refusal: 'I cannot help with that.' } : { refusal: 'Still no.' },
    );
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(fake.chats).toHaveLength(2);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'llm-fallback',
        reason: 'invalid-json',
        detail: 'the model refused to answer: Still no.',
      }),
    );
  });

  const failures: [string, OpenAIReply, string, RegExp][] = [
    ['an answer without choices', { body: { object: 'chat.completion' } }, 'invalid-response', /without choices/],
    ['a body that is not JSON', { raw: '{"choices": [' }, 'invalid-response', /not JSON/],
    [
      'an HTTP 500',
      { status: 500, body: { error: { message: 'out of memory' } } },
      'server-error',
      /HTTP 500: out of memory/,
    ],
  ];

  it.each(failures)('%s ends in the syntax tree, reported', async (_, reply, reason, detail) => {
    const { enricher, events } = await openAIEnricherFor(() => reply);
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'llm-fallback', reason, detail: expect.stringMatching(detail) }),
    );
  });

  it('a wrong key and a model the server lacks are server errors that say so', async () => {
    const { enricher, events } = await openAIEnricherFor(() => ({ content: goodAnswer() }), { apiKey: 'sk-wrong' });
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(events).toContainEqual(
      expect.objectContaining({
        reason: 'server-error',
        detail: expect.stringMatching(
          /^HTTP 401: Incorrect API key provided: check the API key given \(OCVECTOR_API_KEY/,
        ),
      }),
    );
    const missing: AnalysisEvent[] = [];
    const other = new OpenAIEnricher({
      baseUrl: openai!.url,
      model: 'llama',
      apiKey: 'sk-test',
      onEvent: (e) => missing.push(e),
    });
    expect(await other.enrich(astOnly, text)).toEqual(astOnly);
    expect(missing).toContainEqual(
      expect.objectContaining({
        reason: 'server-error',
        detail: expect.stringMatching(
          /^HTTP 404: The model `llama` does not exist: check the model name it serves \(GET http:.*\/v1\/models lists them\)/,
        ),
      }),
    );
  });

  it('caches apart from an Ollama model of the same name', async () => {
    const cache = new MemoryAnalysisCache();
    server = await FakeOllama.start({ chat: () => ({ content: goodAnswer() }) });
    await new OllamaEnricher({ host: server.url, model: 'coder', cache }).enrich(astOnly, text);
    const { enricher, fake } = await openAIEnricherFor(() => ({ content: goodAnswer() }), { cache });
    await enricher.enrich(astOnly, text);
    expect(fake.chats).toHaveLength(1);
    expect(await enricher.plannedCalls(astOnly, text)).toBe(0);
  });

  it('is made by createAnalyzer with kind: openai, and needs a base URL and a model', async () => {
    const { createAnalyzer } = await import('../../src/internal.js');
    openai = await FakeOpenAI.start({ chat: () => ({ content: goodAnswer() }) });
    const { analyzer, enricher } = createAnalyzer({ llm: { kind: 'openai', baseUrl: openai.url, model: 'coder' } });
    expect(enricher).toBeInstanceOf(OpenAIEnricher);
    expect(await analyzer.analyzeBytes(path, Buffer.from(text))).toMatchObject({ source: 'ast+llm' });
    expect(() => createAnalyzer({ llm: { kind: 'openai', model: 'coder' } })).toThrow(/needs its base URL/);
    expect(() => createAnalyzer({ llm: { kind: 'openai', baseUrl: openai!.url } })).toThrow(/needs its name/);
  });
});

describe('the strict form of the result schema', () => {
  it('requires every property of every object, lets the optional ones be null, and keeps the rest', () => {
    const strict = strictSchema(RESULT_SCHEMA);
    interface SchemaNode {
      properties?: Record<string, SchemaNode>;
      items?: SchemaNode;
      required?: string[];
      additionalProperties?: boolean;
      type?: unknown;
    }
    const objects: SchemaNode[] = [];
    // Schema positions only: a property may itself be called "properties".
    const walk = (schema: SchemaNode) => {
      if (schema.properties) {
        objects.push(schema);
        Object.values(schema.properties).forEach(walk);
      }
      if (schema.items) walk(schema.items);
    };
    walk(strict as SchemaNode);
    expect(objects.length).toBeGreaterThanOrEqual(6);
    for (const object of objects) {
      expect(object.required).toEqual(Object.keys(object.properties!));
      expect(object.additionalProperties).toBe(false);
    }
    const element = (strict as SchemaNode).properties!.elements!.items!.properties!;
    expect(element.parameters!.type).toEqual(['array', 'null']);
    expect(element.name).toEqual({ type: 'string' }); // minLength is ajv's to check
    expect(JSON.stringify(strict)).not.toMatch(/"\$schema"|"minimum"|"minLength"/);
  });

  it('an answer in the strict form, nulls dropped, is an answer in the full form', () => {
    const answer = JSON.parse(goodAnswer());
    answer.elements[0].parameters = null;
    answer.elements[0].properties = [{ name: 'p', type: 'T', accessors: null }];
    const adapted = withoutNulls(answer) as typeof answer;
    expect('parameters' in adapted.elements[0]).toBe(false);
    expect(adapted.elements[0].properties).toEqual([{ name: 'p', type: 'T' }]);
    expect(adapted.elements[1]).toEqual(answer.elements[1]);
  });
});
