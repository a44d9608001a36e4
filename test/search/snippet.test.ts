import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher } from '../../src/index.js';
import { bestSnippetStart, SourceText } from '../../src/search/source.js';

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
});
