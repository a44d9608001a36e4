import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher } from '../../src/index.js';
import { bestSnippetStart, SourceCache, SourceReader, SourceText } from '../../src/search/source.js';
import { IndexStore } from '../../src/store/embedded/index-store.js';

const filler = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `  step${from + i}();`);

describe('a snippet shows the lines that answer', () => {
  it('starts at the element when it fits, or when its opening lines match as well as any', () => {
    const text = new SourceText(Buffer.from(['function f() {', ...filler(10), '}'].join('\n')));
    expect(bestSnippetStart(text, 1, 12, new Set(['retri']))).toBe(1);
    const long = new SourceText(Buffer.from(['function retry() {', ...filler(100), '}'].join('\n')));
    expect(bestSnippetStart(long, 1, 102, new Set(['retri']), { maxLines: 10 })).toBe(1);
  });

  it('moves to the window with the most query terms, two lines above the first of them', () => {
    const lines = [
      'function handle() {',
      ...filler(60),
      '  const origin = allowOrigin(request);',
      "  response.setHeader('Access-Control-Allow-Origin', origin);",
      ...filler(40, 60),
      '}',
    ];
    const text = new SourceText(Buffer.from(lines.join('\n')));
    const start = bestSnippetStart(text, 1, lines.length, new Set(['access', 'control', 'allow', 'origin']), {
      maxLines: 10,
    });
    expect(start).toBe(60);
    expect(lines[start + 1]).toContain('allowOrigin');
  });

  const dir = mkdtempSync(join(tmpdir(), 'ocvector-snippet-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a chunk matched deep inside shows its matching lines, and says where they start', async () => {
    // A script with no declaration: one long chunk of top-level statements.
    const lines = [
      "'use strict';",
      ...Array.from({ length: 36 }, (_, i) => `config.option${i} = readOption('option${i}');`),
      'config.cacheStorage = globalThis.caches;',
    ];
    writeFileSync(join(dir, 'setup.js'), `${lines.join('\n')}\n`);
    const indexer = new Indexer({ path: dir, embedder: 'builtin', llm: false });
    await indexer.run();
    const searcher = await Searcher.open({ indexDir: indexer.indexDir });
    try {
      const { results } = await searcher.search('globalThis.caches', { k: 1, snippet: { maxLines: 8 } });
      expect(results[0]).toMatchObject({ path: 'setup.js', type: 'chunk', startLine: 1 });
      expect(results[0]!.snippetStartLine).toBeGreaterThan(25);
      expect(results[0]!.snippet).toContain('config.cacheStorage = globalThis.caches;');
    } finally {
      searcher.close();
    }
  });

  it('reads only the bytes of the element of an unchanged file, and the whole file once it changed', () => {
    const path = join(dir, 'bytes.ts');
    const text = `// header\nexport function one() {\n  return 1;\n}\nexport function two() {\n  return 2;\n}\n`;
    writeFileSync(path, text);
    const info = statSync(path);
    const file = { path: 'bytes.ts', size: info.size, mtimeMs: info.mtimeMs, hash: null };
    const start = text.indexOf('export function two');
    const two = { startLine: 5, startByte: start, endByte: text.length };
    const state = new SourceReader(dir, new SourceCache()).state(file, true, two);
    expect(state.stale).toBe(false);
    expect(state.text!.lines(5, 7)).toEqual(['export function two() {', '  return 2;', '}']);
    // The recorded bytes are what is read: bytes that say otherwise show otherwise.
    const shifted = new SourceReader(dir, new SourceCache()).state(file, true, { ...two, startByte: start + 7 });
    expect(shifted.text!.lines(5, 5)).toEqual(['function two() {']);
    // Bytes not recorded (an index written before they were): the whole file.
    const unknown = new SourceReader(dir, new SourceCache()).state(file, true, {
      startLine: 5,
      startByte: -1,
      endByte: -1,
    });
    expect(unknown.text!.lines(1, 2)).toEqual(['// header', 'export function one() {']);
    // Changed since indexed: the whole file, read and hashed, and the element's bytes are not trusted.
    const changed = new SourceReader(dir, new SourceCache()).state({ ...file, size: file.size + 1 }, true, two);
    expect(changed.stale).toBe(true);
    expect(changed.text!.lines(1, 1)).toEqual(['// header']);
  });

  it("the index records each element's bytes, and moves them when lines above change length", async () => {
    const repo = mkdtempSync(join(tmpdir(), 'ocvector-bytes-'));
    try {
      const source = (comment: string) =>
        `// ${comment}\nexport function alpha(): number {\n  return 1;\n}\n\nexport function beta(): string {\n  return 'β';\n}\n`;
      const indexer = new Indexer({ path: repo, embedder: 'builtin', llm: false });
      const elementBytes = () => {
        const store = IndexStore.open(indexer.indexDir, { readonly: true });
        try {
          const [file] = [...store.files(store.rootId(repo)).values()];
          return store.elementsOfFile(file!.id).map((row) => [row.name, row.startByte, row.endByte] as const);
        } finally {
          store.close();
        }
      };
      for (const comment of ['short', 'a much longer comment on the same single line']) {
        const text = source(comment);
        writeFileSync(join(repo, 'a.ts'), text);
        await indexer.run();
        const bytes = Buffer.from(text);
        const rows = elementBytes();
        const beta = rows.find(([name]) => name === 'beta')!;
        expect(bytes.toString('utf8', beta[1], beta[2])).toBe("export function beta(): string {\n  return 'β';\n}\n");
        for (const [, start, end] of rows) expect(end).toBeGreaterThan(start);
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
