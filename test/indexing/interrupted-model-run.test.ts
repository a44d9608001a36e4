/**
 * A run with an analysis model that is interrupted keeps the answers it was given: the next run
 * asks the model only about the files it had not answered (issue 57: a small model on a CPU
 * took 8 minutes for one answer, and an interrupted run lost it). What an index's cache holds
 * is data, checked as a model's reply is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IndexStore } from '../../src/store/embedded/index-store.js';
import { prepared } from '../../src/store/embedded/sqlite.js';
import { Indexer } from '../../src/indexing/indexer.js';
import type { IndexerOptions } from '../../src/indexing/options.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const FILES = 8;
/** Answered before the abort. */
const ANSWERED = 3;

/** A valid answer for the file the prompt names: its one function, described. */
function answerFor(prompt: string): string {
  const path = /src\/f(\d+)\.ts/.exec(prompt)!;
  return JSON.stringify({
    'file-path': path[0],
    language: 'typescript',
    summary: 'Adds a number.',
    imports: [],
    elements: [
      {
        'property-type': 'function',
        name: `add${path[1]}`,
        'access-modifier': 'public',
        'start-line': 1,
        'end-line': 3,
        signature: `add${path[1]}(a: number)`,
        description: `Adds ${path[1]} to a number.`,
      },
    ],
  });
}

function askedPaths(fake: FakeOllama, from = 0): string[] {
  return fake.chats.slice(from).map((chat) => /src\/f\d+\.ts/.exec(chat.messages[0]!.content)![0]);
}

describe('an interrupted run with an analysis model', () => {
  let repo: TempRepo | undefined;
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    repo?.cleanup();
    await fake?.close();
    repo = fake = undefined;
  });

  async function setUp(): Promise<{ options: (extra?: Partial<IndexerOptions>) => IndexerOptions; fake: FakeOllama }> {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++)
      files[`src/f${i}.ts`] = `export function add${i}(a: number) {\n  return a + ${i};\n}\n`;
    repo = tempRepo(files);
    repo.age();
    // One call at a time, as a local server answers: the abort comes while the next one waits.
    fake = await FakeOllama.start({
      chat: (request) => ({ content: answerFor(request.messages[0]!.content), delayMs: 50 }),
    });
    const root = repo.root;
    const url = fake.url;
    return {
      fake,
      options: (extra = {}) => ({ path: root, embedder: 'builtin', llm: { host: url, model: 'coder' }, ...extra }),
    };
  }

  /** A run aborted once the model has given `ANSWERED` answers. */
  async function interrupted(options: IndexerOptions): Promise<void> {
    const controller = new AbortController();
    let answers = 0;
    const run = new Indexer({
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'analysis' && event.event.type === 'llm-answer' && ++answers === ANSWERED)
          controller.abort(new DOMException('interrupted', 'AbortError'));
      },
    }).run();
    await expect(run).rejects.toThrow(/interrupted/);
  }

  it('resumes where it stopped: the files answered are not asked again, and the others are', async () => {
    const { options, fake } = await setUp();
    await interrupted(options());
    const answeredFirst = askedPaths(fake).slice(0, ANSWERED);
    const before = fake.chats.length;

    const resumed = await new Indexer(options()).run();
    const askedAgain = askedPaths(fake, before);
    // Every file the first run had no answer for, and none it had (the call cut off by the abort is asked again).
    expect(askedAgain).toHaveLength(FILES - ANSWERED);
    expect(askedAgain.filter((path) => answeredFirst.includes(path))).toEqual([]);
    expect(new Set([...answeredFirst, ...askedAgain]).size).toBe(FILES);
    expect(resumed.calls.model).toBe(FILES - ANSWERED);
    // The files done before the abort were written then (answered ones); the rest now.
    expect(resumed.files.added).toBeGreaterThanOrEqual(FILES - ANSWERED);

    // Every function has the model's description, those answered before the abort included.
    const store = IndexStore.open(resumed.indexDir, { readonly: true });
    try {
      const described = prepared(
        store.database,
        "SELECT element_name AS name, description FROM elements WHERE element_name LIKE 'add%'",
      ).all() as { name: string; description: string }[];
      expect(described).toHaveLength(FILES);
      for (const { name, description } of described) expect(description).toBe(`Adds ${name.slice(3)} to a number.`);
    } finally {
      store.close();
    }
  });

  it('keeps the answers of an interrupted rebuild, which otherwise leaves the index as it was', async () => {
    const { options, fake } = await setUp();
    await new Indexer(options({ llm: false })).run();
    await interrupted(options({ rebuild: true }));
    const before = fake.chats.length;
    const rebuilt = await new Indexer(options({ rebuild: true })).run();
    expect(askedPaths(fake, before)).toHaveLength(FILES - ANSWERED);
    expect(rebuilt.calls.model).toBe(FILES - ANSWERED);
  });

  it('keeps each part of a file asked about in several parts as it is answered', async () => {
    // 13 undocumented functions: three parts of at most 6 elements each.
    const functions = Array.from(
      { length: 13 },
      (_, i) => `export function part${i}(a: number) {\n  return a * ${i};\n}\n`,
    );
    repo = tempRepo({ 'src/big.ts': functions.join('\n') });
    repo.age();
    fake = await FakeOllama.start({
      chat: (request) => {
        const prompt = request.messages[0]!.content;
        const [, first, last] = /lines (\d+)-(\d+) of the file/.exec(prompt)!.map(Number);
        return {
          content: JSON.stringify({
            'file-path': 'src/big.ts',
            language: 'typescript',
            summary: `Lines ${first} to ${last}.`,
            imports: [],
            elements: [],
          }),
        };
      },
    });
    const options: IndexerOptions = { path: repo.root, embedder: 'builtin', llm: { host: fake.url, model: 'coder' } };
    const controller = new AbortController();
    let answers = 0;
    const run = new Indexer({
      ...options,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'analysis' && event.event.type === 'llm-answer' && ++answers === 2) controller.abort();
      },
    }).run();
    await expect(run).rejects.toThrow();
    expect(fake.chats.length).toBeGreaterThanOrEqual(2);
    const parts = /Part \d of (\d)/.exec(fake.chats[0]!.messages[0]!.content)![1];
    expect(parts).toBe('3');
    const before = fake.chats.length;

    const resumed = await new Indexer(options).run();
    // Only the third part is asked: the first two were answered before the stop.
    expect(fake.chats.slice(before).map((chat) => /Part (\d) of 3/.exec(chat.messages[0]!.content)![1])).toEqual(['3']);
    expect(resumed.calls.model).toBe(1);
    expect(resumed.files.added).toBe(1);
  });

  it('asks the model again where the cache holds something that is not an answer', async () => {
    const { options, fake } = await setUp();
    const first = await new Indexer(options()).run();
    expect(fake.chats).toHaveLength(FILES);
    const store = IndexStore.open(first.indexDir);
    try {
      // Valid JSON, as an index that came with a clone may hold: not answers the schema allows.
      store.database.exec(`UPDATE analysis_cache SET answers = '[{"summary": 5, "elements": "x"}]'`);
    } finally {
      store.close();
    }
    const second = await new Indexer(options({ rebuild: true })).run();
    expect(fake.chats).toHaveLength(2 * FILES);
    expect(second.calls.model).toBe(FILES);
  });
});
