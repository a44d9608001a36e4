/**
 * Copies crowd the results (issue 57, point 3): a package that ships the
 * TypeScript source, its built `.js` and `.cjs` and its `.d.ts` and `.d.cts`
 * returned each element five times. An element's copies fold into its
 * source, which takes the best place among them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher } from '../../src/index.js';
import { copyKey, modulePath } from '../../src/search/ranking/copies.js';

const SOURCE = `/** Reads a decimal number from text, or throws when the text is not one. */
export function parseDecimal(text: string): number {
  const value = Number(text.trim());
  if (!Number.isFinite(value)) throw new Error(\`not a decimal number: \${text}\`);
  return value;
}

/** Formats a number with a fixed count of digits after the point. */
export function formatDecimal(value: number, digits: number): string {
  return value.toFixed(digits);
}
`;
const BUILT = `/** Reads a decimal number from text, or throws when the text is not one. */
export function parseDecimal(text) {
  const value = Number(text.trim());
  if (!Number.isFinite(value)) throw new Error(\`not a decimal number: \${text}\`);
  return value;
}

/** Formats a number with a fixed count of digits after the point. */
export function formatDecimal(value, digits) {
  return value.toFixed(digits);
}
`;
const COMMONJS = BUILT.replace(/export function (\w+)/g, 'function $1').concat(
  'exports.parseDecimal = parseDecimal;\nexports.formatDecimal = formatDecimal;\n',
);
const DECLARATIONS = `/** Reads a decimal number from text, or throws when the text is not one. */
export declare function parseDecimal(text: string): number;
/** Formats a number with a fixed count of digits after the point. */
export declare function formatDecimal(value: number, digits: number): string;
`;

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'decimals', version: '1.0.0', type: 'module' }),
  'src/decimal.ts': SOURCE,
  // Beside the package's root, as zod 4 ships them (a `dist/` directory is not indexed by default).
  'decimal.js': BUILT,
  'decimal.cjs': COMMONJS,
  'decimal.d.ts': DECLARATIONS,
  'decimal.d.cts': DECLARATIONS,
};

describe('copies of a source file fold into it', () => {
  let root: string;
  let indexDir: string;
  let searcher: Searcher;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ocvector-copies-'));
    for (const [path, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    indexDir = join(root, '.ocvector');
    await new Indexer({ path: root, root, indexDir, embedder: 'builtin', llm: false }).run();
    searcher = await Searcher.open({ indexDir });
  }, 60_000);
  afterAll(() => {
    searcher?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const query of ['parseDecimal', 'read a decimal number from text']) {
    it(`lists each element once, from its source, for "${query}"`, async () => {
      const { results } = await searcher.search(query, { k: 10, snippet: false });
      const named = results.filter((result) => result.name === 'parseDecimal');
      expect(named.map((result) => result.path)).toEqual(['src/decimal.ts']);
      expect(results[0]!.path).toBe('src/decimal.ts');
      // The other function is listed once too, not five times.
      expect(results.filter((result) => result.name === 'formatDecimal').length).toBeLessThanOrEqual(1);
    });
  }

  it('explains the place a source took from its copy', async () => {
    const { results } = await searcher.search('parseDecimal', { k: 10, snippet: false, explain: true });
    const steps = results[0]!.explain!.terms.map((term) => term.feature);
    // Whichever copy scored best, the source holds the first place; when a copy did, the step says so.
    if (steps.includes('copyOf')) expect(steps.at(-1)).toBe('copyOf');
    expect(results[0]!.path).toBe('src/decimal.ts');
  });
});

describe('what a copy is', () => {
  it('is the same module, past the build and source directories, in another format', () => {
    expect(modulePath('src/v4/core/parse.ts')).toBe('v4/core/parse');
    expect(modulePath('v4/core/parse.d.cts')).toBe('v4/core/parse');
    expect(modulePath('packages/a/dist/esm/x.mjs')).toBe('packages/a/x');
    expect(modulePath('packages/a/src/x.ts')).toBe('packages/a/x');
    // The file's own name stays, even a build directory's name.
    expect(modulePath('src/lib.ts')).toBe('lib');
    expect(copyKey('src/x.ts', 'parse')).toBe(copyKey('dist/x.d.ts', 'parse'));
    expect(copyKey('src/x.ts', 'parse')).not.toBe(copyKey('dist/x.d.ts', 'format'));
    expect(copyKey('src/x.py', 'parse')).toBeUndefined();
  });
});
