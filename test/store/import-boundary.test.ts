/**
 * The store seam holds: nothing outside src/store/ names an implementation (store/embedded/,
 * store/postgres/) or asks which kind of store it has. The rest of the library asks store.ts's
 * Store, opened by open.ts from the registry of kinds (locations.ts), and its capabilities, so
 * that a third store is a folder beside them and one registration there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const IMPLEMENTATION = /(?:from\s+|import\s*\(\s*)['"][^'"]*\bstore\/(?:embedded|postgres)\//;
/** The one-line comment a bench that imports a store's insides gives its reason in. */
const INTERNAL_BENCH = /^\/\/ An internal bench\b.*: \S/m;
/** What tells one kind of store from another, or names one: the registry's business alone. */
const KIND_CHECK = /\b(?:postgresChoice|isPostgresUrl|PostgresStore|EmbeddedStore|copyIndex)\b/;

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each line of a source outside src/store/ that `pattern` matches, as `path:line: text`. */
function linesOutsideStore(pattern: RegExp): string[] {
  return sourcesUnder('src')
    .filter((path) => !path.startsWith(join('src', 'store') + sep))
    .flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .map((text, index) => ({ path, line: index + 1, text }))
        .filter(({ text }) => pattern.test(text)),
    )
    .map(({ path, line, text }) => `${path}:${line}: ${text.trim()}`);
}

describe('the store seam', () => {
  it('is the only way into the stores: no module outside src/store/ imports store/embedded or store/postgres', () => {
    expect(linesOutsideStore(IMPLEMENTATION)).toEqual([]);
  });

  it('is the only place that asks which kind of store there is: outside src/store/, a store is asked its capabilities', () => {
    expect(linesOutsideStore(KIND_CHECK)).toEqual([]);
  });

  it('is how the benches measure a store, but where one measures its insides and says so', () => {
    const unsaid = ['bench']
      .flatMap((dir) => sourcesUnder(dir))
      .filter((path) => {
        const text = readFileSync(join(ROOT, path), 'utf8');
        return text.split('\n').some((line) => IMPLEMENTATION.test(line)) && !INTERNAL_BENCH.test(text);
      });
    expect(unsaid).toEqual([]);
  });

  it('catches such an import', () => {
    expect(IMPLEMENTATION.test("import { IndexStore } from '../store/embedded/index-store.js';")).toBe(true);
    expect(IMPLEMENTATION.test("const { PostgresStore } = await import('../store/postgres/postgres-store.js');")).toBe(
      true,
    );
    expect(IMPLEMENTATION.test("import { openStore } from '../store/open.js';")).toBe(false);
    expect(KIND_CHECK.test('  if (postgresChoice(options.store)) return;')).toBe(true);
    expect(KIND_CHECK.test("import { isPostgresUrl } from '../store/open.js';")).toBe(true);
    expect(KIND_CHECK.test('  if (!store.capabilities.seedFromCopy) return;')).toBe(false);
  });
});
