/**
 * The candidate lists count modules, not rows (issue 57, point 4): in a
 * package that ships each module three times (`src/x.ts`, `x.js`,
 * `x.d.ts`), a list of 100 rows held about 34 modules, so the element that
 * answers a query, 41st by its words, never became a candidate, where in the
 * same package without copies it does. zod's `toJSONSchema` was lost so.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Indexer, Searcher } from '../../src/index.js';
import { LexicalSearch } from '../../src/search/lexical-search.js';
import { filesPerModule, firstInModules } from '../../src/search/ranking/copies.js';

const MODULES = 60;

/** Forty modules whose one function says the query's words often and briefly: better BM25 than the answer. */
function padding(i: number, typed: boolean): string {
  const text = typed ? 'text: string' : 'text';
  return `/** Frobnicate widgets: frobnicate the widgets, widgets frobnicate. */
export function pad${i}(${text}) {
  return text;
}
`;
}

/** The answer: named by the query's words, in a longer function that says them once. */
const ANSWER = `/**
 * Frobnicate widgets: walks the tree of nodes given, measures each one, and
 * returns the nodes that changed since the last pass, in document order.
 */
export function frobnicateWidgets(nodes: string[]): string[] {
  const changed: string[] = [];
  for (const node of nodes) {
    const measured = node.trim();
    if (measured.length > 0 && measured !== node) changed.push(measured);
  }
  return changed;
}
`;

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

async function indexed(withCopies: boolean): Promise<{ root: string; searcher: Searcher }> {
  const root = mkdtempSync(join(tmpdir(), 'ocvector-copies-depth-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'widgets', version: '1.0.0', type: 'module' }),
    'src/answer.ts': ANSWER,
  };
  for (let i = 0; i < MODULES; i++) {
    files[`src/pad${i}.ts`] = padding(i, true);
    if (withCopies) {
      files[`pad${i}.js`] = padding(i, false);
      files[`pad${i}.d.ts`] =
        `/** Frobnicate widgets: frobnicate the widgets, widgets frobnicate. */\nexport declare function pad${i}(text: string): string;\n`;
    }
  }
  write(root, files);
  const indexDir = join(root, '.ocvector');
  await new Indexer({ path: root, root, indexDir, embedder: 'builtin', llm: false }).run();
  return { root, searcher: await Searcher.open({ indexDir }) };
}

describe('candidate lists counted in modules', () => {
  const opened: { root: string; searcher: Searcher }[] = [];
  beforeAll(async () => {
    opened.push(await indexed(false), await indexed(true));
  }, 120_000);
  afterAll(() => {
    for (const { root, searcher } of opened) {
      searcher.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds the answer in a package of copies as without them', async () => {
    for (const { searcher } of opened) {
      const { results } = await searcher.search('frobnicate widgets', { k: 1, mode: 'lexical', snippet: false });
      expect(results[0]?.name).toBe('frobnicateWidgets');
      expect(results[0]?.path).toBe('src/answer.ts');
    }
  });

  it('asks each list for as many modules as without copies', async () => {
    const asked = vi.spyOn(LexicalSearch.prototype, 'search');
    try {
      for (const { searcher } of opened) await searcher.search('frobnicate widgets', { k: 10, snippet: false });
      const [plain, copies] = asked.mock.calls.map((call) => call[2]);
      // The package's files over its modules (the answer and package.json have no copies): about three times the rows.
      expect(copies).toBe(Math.ceil((plain! * (2 + 3 * MODULES)) / (2 + MODULES)));
    } finally {
      asked.mockRestore();
    }
  });
});

describe('what counting in modules reads', () => {
  it('counts the files a repository holds for each module', () => {
    expect(filesPerModule([['src/a.ts', 'a.js', 'a.d.ts', 'src/b.ts', 'b.js', 'b.d.ts']])).toBe(3);
    expect(filesPerModule([['src/a.ts', 'src/b.ts', 'README.md']])).toBe(1);
    // Copies are found within one repository: the same path in two is two modules.
    expect(filesPerModule([['src/a.ts'], ['a.js']])).toBe(1);
    expect(filesPerModule([])).toBe(1);
  });

  it('keeps the start of a list as long as it would be without copies, each copy kept', () => {
    const rows = new Map([
      [1, { path: 'src/a.ts', name: 'parse' }],
      [2, { path: 'a.js', name: 'parse' }],
      [3, { path: 'src/b.ts', name: 'format' }],
      [4, { path: 'src/c.ts', name: 'print' }],
      [5, { path: 'src/d.ts', name: 'scan' }],
      [6, { path: 'src/e.ts', name: 'load' }],
    ]);
    // Six rows fetched three times deeper: two modules' worth, copies included.
    const hits = [1, 3, 2, 4, 5, 6].map((id) => ({ id, score: 1 / id }));
    expect(firstInModules(hits, rows, 3).map((hit) => hit.id)).toEqual([1, 3, 2]);
    // A hit whose row is gone (filtered out) is kept and not counted.
    expect(firstInModules([{ id: 9, score: 2 }, ...hits], rows, 3.5).map((hit) => hit.id)).toEqual([9, 1, 3, 2]);
    expect(firstInModules(hits, rows, 1.5).map((hit) => hit.id)).toEqual([1, 3, 2, 4, 5]);
    expect(firstInModules(hits, rows, 1)).toBe(hits);
  });
});
