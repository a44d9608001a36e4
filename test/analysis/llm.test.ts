import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Analyzer,
  MemoryAnalysisCache,
  RESULT_SCHEMA,
  analyzeText,
  resolveOllamaHost,
  type AnalysisEvent,
  type CodeFile,
  type OllamaEnricherOptions,
} from '../../src/internal.js';
import { OllamaEnricher } from '../../src/analysis/llm/ollama-enricher.js';
import { OpenAIEnricher, type OpenAIEnricherOptions } from '../../src/analysis/llm/openai-enricher.js';
import { strictSchema, withoutNulls } from '../../src/analysis/llm/strict-schema.js';
import { FakeOllama, type Reply } from '../helpers/fake-ollama.js';
import { MAX_ANSWER_ELEMENTS } from '../../src/analysis/llm/answer-format.js';
import { FakeOpenAI, type Reply as OpenAIReply } from '../helpers/fake-openai.js';

const text = readFileSync(new URL('../fixtures/analysis/faiss-index.ts.txt', import.meta.url), 'utf8');
const path = 'src/native/faiss-index.ts';
const astOnly = analyzeText(path, text);

/** The elements a prompt asks about (`- name (kind, lines a-b)`), as `name@a`. */
function askedIn(prompt: string): Set<string> {
  return new Set([...prompt.matchAll(/^- (.+) \([\w-]+, lines (\d+)-\d+\)$/gm)].map((m) => `${m[1]}@${m[2]}`));
}

/** The elements a model is asked about: those with no doc comment of their own, fields and properties aside. */
const undocumented = astOnly.elements.filter((e) => !e.description && e.type !== 'field' && e.type !== 'property');
/** The calls the fixture takes: its undocumented elements, at most MAX_ANSWER_ELEMENTS to a call. */
const FIXTURE_CALLS = await new OllamaEnricher({ host: 'http://127.0.0.1:9' }).plannedCalls(astOnly, text);
/** The event of a fixture whose every undocumented element got a description. */
const ALL_DESCRIBED = {
  type: 'llm-enriched',
  path,
  matched: undocumented.length,
  dropped: 0,
  parts: FIXTURE_CALLS,
  cached: false,
};

/**
 * What a good model answers: the elements the prompt lists (every element of the tree, without
 * one), with descriptions and relations.
 */
function goodAnswer(file: CodeFile = astOnly, shiftLines = 0, prompt?: string): string {
  const asked = prompt === undefined ? undefined : askedIn(prompt);
  return JSON.stringify({
    'file-path': file.path,
    language: 'typescript',
    summary: 'MODEL SUMMARY: a typed facade over the native FAISS index.',
    imports: file.imports,
    elements: file.elements
      .filter((e) => !asked || asked.has(`${e.name}@${e.startLine}`))
      .map((e) => ({
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
  it('describes the elements without a doc comment, in calls of a few; a doc comment stands and is not asked about', async () => {
    const {
      enricher,
      events,
      server: fake,
    } = await enricherFor((_, prompt) => ({ content: goodAnswer(astOnly, 0, prompt) }));
    const file = await enricher.enrich(astOnly, text);

    expect(file.source).toBe('ast+llm');
    expect(file.elements.map((e) => [e.name, e.startLine, e.endLine])).toEqual(
      astOnly.elements.map((e) => [e.name, e.startLine, e.endLine]),
    );
    const cls = file.elements.find((e) => e.name === 'FaissIndex')!;
    expect(cls.description).toBe('MODEL: what FaissIndex does.');
    const search = file.elements.find((e) => e.name === 'search')!;
    expect(search.description).toBe('k nearest neighbours of each query row; see {@link SearchResult}.');
    expect(search.dependencies).toContainEqual({ type: 'calls', target: 'checkVectors' });
    const prompts = fake.chats.map((c) => c.messages[0]!.content);
    expect(prompts.some((prompt) => askedIn(prompt).has(`search@${search.startLine}`))).toBe(false);
    const described = file.elements.filter((e, i) => !astOnly.elements[i]!.description && e.description);
    expect(described).toHaveLength(undocumented.length);
    expect(described.every((e) => e.dependencies.some((d) => d.target === `Model${e.name}`))).toBe(true);
    expect(file.summary).toMatch(/^FaissIndex: a FAISS index/); // the file's own doc comment wins
    expect(FIXTURE_CALLS).toBe(Math.ceil(undocumented.length / MAX_ANSWER_ELEMENTS));
    expect(fake.chats).toHaveLength(FIXTURE_CALLS);
    expect(prompts.map((prompt) => askedIn(prompt).size).reduce((a, b) => a + b)).toBe(undocumented.length);
    expect(events.at(-1)).toEqual(ALL_DESCRIBED);
    expect(events.slice(0, -1)).toEqual([
      { type: 'llm-asking', path, calls: FIXTURE_CALLS },
      ...prompts.map((_, part) => ({
        type: 'llm-answer',
        path,
        part,
        attempt: 0,
        outcome: 'valid',
        seconds: expect.any(Number),
      })),
    ]);

    // The format fixes the elements asked about, in order: the model writes descriptions, not names or lines.
    const request = fake.chats[0]!;
    expect(request.model).toBe('test-model');
    const items = (
      request.format as { properties: { elements: { items: { properties: Record<string, { const?: unknown }> }[] } } }
    ).properties.elements.items;
    expect(items.map((item) => `${item.properties.name!.const}@${item.properties['start-line']!.const}`)).toEqual([
      ...askedIn(prompts[0]!),
    ]);
    expect(request.options).toMatchObject({ temperature: 0 });
    expect(request.stream).toBe(true); // streamed: the deadline is restarted by each part that comes
    expect(fake.chats.some((chat) => chat.messages[0]!.content.includes('66| export class FaissIndex {'))).toBe(true);
  });

  it('caches by model, prompt and content: an unchanged file never reaches the model again', async () => {
    const cache = new MemoryAnalysisCache();
    const {
      enricher,
      events,
      server: fake,
    } = await enricherFor((_, prompt) => ({ content: goodAnswer(astOnly, 0, prompt) }), { cache });
    const first = await enricher.enrich(astOnly, text);
    const second = await enricher.enrich(astOnly, text);
    expect(second).toEqual(first);
    expect(fake.chats).toHaveLength(FIXTURE_CALLS);
    expect(enricher.calls).toBe(FIXTURE_CALLS);
    expect(events.at(-1)).toMatchObject({ type: 'llm-enriched', cached: true });
    const otherModel = new OllamaEnricher({ host: fake.url, model: 'another-model', cache });
    await otherModel.enrich(astOnly, text);
    expect(fake.chats).toHaveLength(2 * FIXTURE_CALLS);
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
  async function expectFallback(
    reply: (index: number, prompt: string) => Reply,
    reason: string,
    options: OllamaEnricherOptions = {},
  ) {
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
    const { enricher } = await enricherFor((i, prompt) => ({
      content: i === 0 ? 'Sure! Here is the JSON you asked for:' : goodAnswer(astOnly, 0, prompt),
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
    const withInvention = (prompt: string) => {
      const answer = JSON.parse(goodAnswer(astOnly, 0, prompt));
      answer.elements.push({ ...answer.elements[0], name: 'InventedHelper', 'start-line': 3, 'end-line': 9 });
      return answer;
    };
    const { enricher, events } = await enricherFor((_, prompt) => ({ content: JSON.stringify(withInvention(prompt)) }));
    const file = await enricher.enrich(astOnly, text);
    expect(file.elements.some((e) => e.name === 'InventedHelper')).toBe(false);
    expect(events.filter((e) => e.type !== 'llm-answer')).toEqual([
      { type: 'llm-asking', path, calls: FIXTURE_CALLS },
      expect.objectContaining({ type: 'llm-enriched', matched: undocumented.length, dropped: FIXTURE_CALLS }),
    ]);
    await server!.close();
    const onlyInventions = (prompt: string) => {
      const answer = JSON.parse(goodAnswer(astOnly, 0, prompt));
      answer.elements = answer.elements.map((e: { name: string }, i: number) => ({ ...e, name: `Invented${i}` }));
      return answer;
    };
    await expectFallback((_, prompt) => ({ content: JSON.stringify(onlyInventions(prompt)) }), 'mismatch');
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

  it('a streamed answer is not cut while it keeps coming, however long it takes; a stream that stalls is', async () => {
    // The answer in pieces, as Ollama streams it: one part every 100 ms for about 1 s, with a deadline of 300 ms.
    const streamed = (prompt: string, stallAfter?: number) => {
      const content = goodAnswer(astOnly, 0, prompt);
      const pieces = content.match(/[\s\S]{1,80}/g)!;
      const step = Math.ceil(pieces.length / 10);
      const parts = Array.from({ length: Math.ceil(pieces.length / step) }, (_, i) =>
        JSON.stringify({
          model: 'test-model',
          message: { role: 'assistant', content: pieces.slice(i * step, (i + 1) * step).join('') },
          done: false,
        }),
      );
      parts.push(
        JSON.stringify({ model: 'test-model', message: { role: 'assistant', content: '' }, done: true, eval_count: 9 }),
      );
      return stallAfter === undefined ? parts : parts.slice(0, stallAfter);
    };
    const { enricher, events } = await enricherFor(
      (_, prompt) => ({ lines: { lines: streamed(prompt), intervalMs: 100 } }),
      {
        timeoutMs: 300,
      },
    );
    expect((await enricher.enrich(astOnly, text)).source).toBe('ast+llm');
    expect(events.filter((e) => e.type === 'llm-fallback')).toEqual([]);
    await server!.close();
    // The same answer stalling after 3 parts for longer than the deadline: a timeout.
    await expectFallback(
      (_, prompt) => ({ lines: { lines: [...streamed(prompt, 3), ...Array(1).fill('')], intervalMs: 600 } }),
      'timeout',
      {
        timeoutMs: 300,
      },
    );
  });

  it('a connection that is refused', async () => {
    const events: AnalysisEvent[] = [];
    const enricher = new OllamaEnricher({ host: await FakeOllama.refusingUrl(), onEvent: (e) => events.push(e) });
    expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(events).toEqual([
      { type: 'llm-asking', path, calls: FIXTURE_CALLS },
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

  it('a model the server lacks: said once with `ollama pull`, and no more calls in this run', async () => {
    const {
      enricher,
      events,
      server: fake,
    } = await enricherFor(() => ({
      status: 404,
      body: { error: 'model "test-model" not found, try pulling it first' },
    }));
    for (let i = 0; i < 3; i++) expect(await enricher.enrich(astOnly, text)).toEqual(astOnly);
    expect(fake.chats).toHaveLength(1);
    expect(events.filter((e) => e.type === 'llm-circuit-open')).toEqual([
      expect.objectContaining({
        detail: expect.stringMatching(/has no model test-model: run `ollama pull test-model`/),
      }),
    ]);
    expect(events.filter((e) => e.type === 'llm-fallback').map((e) => e.type === 'llm-fallback' && e.reason)).toEqual([
      'model-missing',
      'circuit-open',
      'circuit-open',
    ]);
  });

  it('each answer is reported: its outcome, attempt, and the tokens the server counted', async () => {
    const reply = (content: string) => ({
      raw: JSON.stringify({
        model: 'test-model',
        message: { role: 'assistant', content },
        done: true,
        prompt_eval_count: 812,
        eval_count: 157,
      }),
    });
    const { enricher, events } = await enricherFor((index) => reply(index === 0 ? '{"elements": 3}' : goodAnswer()));
    await enricher.enrich(astOnly, text);
    expect(events.filter((e) => e.type === 'llm-answer').slice(0, 2)).toEqual([
      {
        type: 'llm-answer',
        path,
        part: 0,
        attempt: 0,
        outcome: 'schema-violation',
        seconds: expect.any(Number),
        promptTokens: 812,
        outputTokens: 157,
      },
      {
        type: 'llm-answer',
        path,
        part: 0,
        attempt: 1,
        outcome: 'valid',
        seconds: expect.any(Number),
        promptTokens: 812,
        outputTokens: 157,
      },
    ]);
  });

  it('files enriched at once reach the server one at a time, each with its whole deadline (parallelCalls 1)', async () => {
    const arrivals: number[] = [];
    const { enricher, events } = await enricherFor(
      (_, prompt) => {
        arrivals.push(performance.now());
        return { content: goodAnswer(astOnly, 0, prompt), delayMs: 250 };
      },
      { timeoutMs: 400 },
    );
    const files = await Promise.all([1, 2, 3, 4].map(() => enricher.enrich(astOnly, text)));
    expect(files.every((file) => file.source === 'ast+llm')).toBe(true);
    expect(events.filter((e) => e.type === 'llm-fallback')).toEqual([]);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThan(200);
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
    server = await FakeOllama.start({
      chat: (request) => ({ content: goodAnswer(astOnly, 0, request.messages[0]!.content) }),
    });
    const analyzer = new Analyzer({ enricher: new OllamaEnricher({ host: server.url }) });
    const code = await analyzer.analyzeBytes(path, Buffer.from(text));
    expect(code).toMatchObject({ source: 'ast+llm' });
    const markdown = await analyzer.analyzeBytes('README.md', Buffer.from('# Title\n\nText.\n'));
    expect(markdown).toMatchObject({ source: 'text' });
    expect(server.chats).toHaveLength(FIXTURE_CALLS);
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
    server = await FakeOllama.start({
      chat: (request) => ({ content: goodAnswer(astOnly, 0, request.messages[0]!.content) }),
    });
    const { createAnalyzer } = await import('../../src/internal.js');
    const off = createAnalyzer({ llm: false });
    expect(off.enricher).toBeUndefined();
    expect(await off.analyzer.analyzeBytes(path, Buffer.from(text))).toEqual(astOnly);
    const on = createAnalyzer({ llm: { host: server.url } });
    expect(await on.analyzer.analyzeBytes(path, Buffer.from(text))).toMatchObject({ source: 'ast+llm' });
    expect(server.chats).toHaveLength(FIXTURE_CALLS);
  });
});

describe('an OpenAI-compatible server (/v1/chat/completions)', () => {
  let openai: FakeOpenAI | undefined;
  afterEach(async () => {
    await openai?.close();
    openai = undefined;
  });

  async function openAIEnricherFor(
    chat: (index: number, prompt: string) => OpenAIReply,
    options: Partial<OpenAIEnricherOptions> = {},
  ) {
    openai = await FakeOpenAI.start({
      chat: (request, index) => chat(index, request.messages[0]!.content),
      models: ['coder'],
      apiKey: 'sk-test',
    });
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
    const { enricher, events, fake } = await openAIEnricherFor((_, prompt) => ({
      content: goodAnswer(astOnly, 0, prompt),
    }));
    const file = await enricher.enrich(astOnly, text);
    expect(file.source).toBe('ast+llm');
    expect(file.elements.find((e) => e.name === 'FaissIndex')!.description).toBe('MODEL: what FaissIndex does.');
    expect(events.at(-1)).toEqual(ALL_DESCRIBED);
    const request = fake.chats[0]!;
    expect(request).toMatchObject({ model: 'coder', temperature: 0, stream: false });
    expect(request.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'ocvector_analysis', schema: strictSchema(RESULT_SCHEMA), strict: true },
    });
    expect(fake.chats.some((chat) => chat.messages[0]!.content.includes('66| export class FaissIndex {'))).toBe(true);
    expect(fake.headers[0]!.authorization).toBe('Bearer sk-test');
    expect(enricher.calls).toBe(FIXTURE_CALLS);
  });

  it('takes a strict answer, with null for what it leaves out', async () => {
    const withNulls = (prompt: string) => {
      const answer = JSON.parse(goodAnswer(astOnly, 0, prompt));
      for (const element of answer.elements) Object.assign(element, { parameters: null, 'return-type': null });
      return answer;
    };
    const { enricher } = await openAIEnricherFor((_, prompt) => ({ content: JSON.stringify(withNulls(prompt)) }));
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
    const { enricher, events } = await openAIEnricherFor((_, prompt) => ({ content: goodAnswer(astOnly, 0, prompt) }), {
      apiKey: 'sk-wrong',
    });
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
    server = await FakeOllama.start({
      chat: (request) => ({ content: goodAnswer(astOnly, 0, request.messages[0]!.content) }),
    });
    await new OllamaEnricher({ host: server.url, model: 'coder', cache }).enrich(astOnly, text);
    const { enricher, fake } = await openAIEnricherFor((_, prompt) => ({ content: goodAnswer(astOnly, 0, prompt) }), {
      cache,
    });
    await enricher.enrich(astOnly, text);
    expect(fake.chats).toHaveLength(FIXTURE_CALLS);
    expect(await enricher.plannedCalls(astOnly, text)).toBe(0);
  });

  it('is made by createAnalyzer with kind: openai, and needs a base URL and a model', async () => {
    const { createAnalyzer } = await import('../../src/internal.js');
    openai = await FakeOpenAI.start({
      chat: (request) => ({ content: goodAnswer(astOnly, 0, request.messages[0]!.content) }),
    });
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
