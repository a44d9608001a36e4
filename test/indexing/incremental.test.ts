import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { FakeOllama } from '../helpers/fake-ollama.js';
import { idsByName, readIndex } from '../helpers/index-state.js';
import { eventLog, SAMPLE_FILES, tempRepo, type TempRepo } from '../helpers/repo.js';

const DIMENSION = 8;

/** An embedding server whose vectors are a function of the text, so equal documents get equal vectors. */
function fakeVector(text: string): number[] {
  const v = new Array<number>(DIMENSION).fill(0);
  for (let i = 0; i < text.length; i++) v[i % DIMENSION]! += text.charCodeAt(i) % 17;
  return v;
}

/** A valid model answer with no elements: the syntax tree's elements stand, and each file costs one call. */
const EMPTY_ANSWER = JSON.stringify({
  'file-path': 'x',
  language: 'typescript',
  summary: 'A file.',
  imports: [],
  elements: [],
});

describe('incremental indexing', () => {
  let repo: TempRepo;
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    repo?.cleanup();
    await fake?.close();
    fake = undefined;
  });

  async function start() {
    fake = await FakeOllama.start({
      chat: () => ({ content: EMPTY_ANSWER }),
      embed: (request) => ({
        body: {
          model: request.model,
          embeddings: (Array.isArray(request.input) ? request.input : [request.input]).map(fakeVector),
        },
      }),
    });
    repo = tempRepo(SAMPLE_FILES);
    repo.age();
    const log = eventLog();
    const indexer = new Indexer({
      path: repo.root,
      embedder: { host: fake.url, model: 'fake-embed', batchSize: 4 },
      llm: { host: fake.url, model: 'fake-chat' },
      onEvent: log.onEvent,
    });
    return { indexer, log, fake };
  }

  it('indexes a repository, and re-indexes an unchanged one with no model or embedding call', async () => {
    const { indexer, fake } = await start();
    const first = await indexer.run();
    expect(first.files.added).toBe(Object.keys(SAMPLE_FILES).length);
    expect(first.elements.total).toBeGreaterThanOrEqual(12);
    // One per code file with something to ask (an undocumented element, or no summary): 3 of the
    // 4; the fourth documents everything. Markdown is not sent.
    expect(first.calls.model).toBe(3);
    expect(first.embeddings.computed).toBe(first.elements.total);
    expect(first.calls.embedding).toBeGreaterThanOrEqual(Math.ceil(first.elements.total / 4));

    const chats = fake.chats.length;
    const embeds = fake.embeds.length;
    const second = await indexer.run();
    expect(second.files.unchanged).toBe(Object.keys(SAMPLE_FILES).length);
    expect(second.calls).toEqual({ embedding: 0, model: 0 });
    expect(second.embeddings.computed).toBe(0);
    expect(fake.chats.length).toBe(chats);
    expect(fake.embeds.length).toBe(embeds);
    expect(second.generation).toBe(first.generation);

    const state = await readIndex(indexer.indexDir);
    expect(state.consistency.ok).toBe(true);
    expect(state.elements.map((e) => e.name)).toEqual(
      expect.arrayContaining(['UserRepository', 'UserRepository.getUserById', 'gcd', 'summarize', 'Sample.Usage']),
    );
  });

  it('re-embeds only the element that changed, and keeps the vectors of elements that only moved', async () => {
    const { indexer, fake } = await start();
    await indexer.run();
    const before = idsByName((await readIndex(indexer.indexDir)).elements);

    // Two lines above everything (moves all elements) and a changed body in one method.
    const edited = SAMPLE_FILES['src/users.ts']!.replace(
      'return this.users.get(id);',
      'return this.users.get(Number(id));',
    );
    repo.write('src/users.ts', `// header\n// added\n${edited}`);
    const embedsBefore = fake.embeds.reduce((n, r) => n + r.input.length, 0);
    const run = await indexer.run();
    expect(run.files.changed).toBe(1);
    expect(run.files.unchanged).toBe(Object.keys(SAMPLE_FILES).length - 1);
    // Only the method's document changed: the class's snippet stops before its first method.
    expect(run.elements).toMatchObject({ added: 1, removed: 1 });
    expect(run.embeddings.computed).toBe(1);
    expect(run.calls.model).toBe(1);
    const after = await readIndex(indexer.indexDir);
    const ids = idsByName(after.elements);
    const changed = [...ids].filter(([name, id]) => before.get(name) !== id).map(([name]) => name);
    expect(changed).toEqual(['src/users.ts#UserRepository.getUserById']);
    expect([...before.keys()].sort()).toEqual([...ids.keys()].sort());
    // One document sent (the dimension is known from the index: no probe).
    expect(fake.embeds.reduce((n, r) => n + r.input.length, 0) - embedsBefore).toBe(1);
    const moved = after.elements.find((e) => e.name === 'UserRepository.saveUser')!;
    expect(moved.startLine).toBe(19);
    expect(after.consistency.ok).toBe(true);
  });

  it('handles added, renamed and deleted files', async () => {
    const { indexer, log } = await start();
    await indexer.run();
    const before = await readIndex(indexer.indexDir);

    repo.write(
      'src/strings.ts',
      '/** Reverses a string. */\nexport function reverse(text: string): string {\n  return [...text].reverse().join("");\n}\n',
    );
    renameSync(join(repo.root, 'src/math.ts'), join(repo.root, 'src/arithmetic.ts'));
    repo.remove('scripts/report.py');
    const run = await indexer.run();
    expect(run.files).toMatchObject({ added: 1, renamed: 1, deleted: 1, changed: 0 });
    const after = await readIndex(indexer.indexDir);
    expect(after.consistency.ok).toBe(true);
    const paths = new Set(after.elements.map((e) => e.path));
    expect(paths.has('src/strings.ts')).toBe(true);
    expect(paths.has('src/arithmetic.ts')).toBe(true);
    expect(paths.has('src/math.ts')).toBe(false);
    expect(paths.has('scripts/report.py')).toBe(false);
    expect(after.elements.find((e) => e.name === 'gcd')?.path).toBe('src/arithmetic.ts');
    expect(after.elements.filter((e) => e.name === 'gcd')).toHaveLength(1);
    // Everything else kept its vector id.
    const untouched = before.elements.filter((e) => !['src/math.ts', 'scripts/report.py'].includes(e.path));
    const afterIds = new Set(after.elements.map((e) => e.vectorId));
    expect(untouched.length).toBeGreaterThan(0);
    expect(untouched.every((e) => afterIds.has(e.vectorId))).toBe(true);
    expect(
      log
        .of('file-removed')
        .map((e) => e.path)
        .sort(),
    ).toEqual(['scripts/report.py', 'src/math.ts']);
  });

  it('indexes a single file, and a subdirectory, without touching the rest', async () => {
    const { indexer } = await start();
    await indexer.run();
    repo.write('src/math.ts', SAMPLE_FILES['src/math.ts']! + '\nexport const TAU = 6.283185307179586;\n');
    repo.write(
      'scripts/report.py',
      SAMPLE_FILES['scripts/report.py']! + '\n\ndef total(results):\n    return len(results)\n',
    );

    const single = new Indexer({
      path: join(repo.root, 'src/math.ts'),
      embedder: { host: fake!.url, model: 'fake-embed' },
      llm: false,
    });
    const one = await single.run();
    expect(one.files).toMatchObject({ scanned: 1, changed: 1 });
    let state = await readIndex(indexer.indexDir);
    expect(state.elements.some((e) => e.name === 'TAU')).toBe(true);
    expect(state.elements.some((e) => e.name === 'total')).toBe(false);

    const scoped = new Indexer({
      path: join(repo.root, 'scripts'),
      embedder: { host: fake!.url, model: 'fake-embed' },
      llm: false,
    });
    const sub = await scoped.run();
    expect(sub.files).toMatchObject({ scanned: 1, changed: 1, deleted: 0 });
    state = await readIndex(indexer.indexDir);
    expect(state.elements.some((e) => e.name === 'total')).toBe(true);
    expect(state.elements.some((e) => e.name === 'UserRepository')).toBe(true);
    expect(state.consistency.ok).toBe(true);
  });
});

describe('--since: git changes', () => {
  it('reads only the files git reports, including untracked and deleted ones', async () => {
    const repo = tempRepo(SAMPLE_FILES, { git: true });
    try {
      repo.age();
      const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
      await indexer.run();
      repo.write(
        'src/math.ts',
        SAMPLE_FILES['src/math.ts']!.replace('Adds two numbers.', 'Adds two numbers, exactly.'),
      );
      repo.write('src/new.ts', 'export function fresh(): number {\n  return 1;\n}\n');
      repo.git('rm', '-q', 'scripts/report.py');
      const log = eventLog();
      const run = await new Indexer({ path: repo.root, embedder: 'builtin', llm: false, onEvent: log.onEvent }).run({
        since: 'HEAD',
      });
      expect(run.files).toMatchObject({ scanned: 2, changed: 1, added: 1, deleted: 1 });
      const state = await readIndex(indexer.indexDir);
      expect(state.elements.some((e) => e.name === 'fresh')).toBe(true);
      expect(state.elements.some((e) => e.name === 'summarize')).toBe(false);
      expect(state.consistency.ok).toBe(true);
      await expect(indexer.run({ since: '--output=/tmp/x' })).rejects.toThrow(/not a git revision/);
      await expect(indexer.run({ since: 'no-such-branch' })).rejects.toThrow(/git failed/);
    } finally {
      repo.cleanup();
    }
  });
});
