/**
 * The store seam holds: nothing outside src/store/ names an implementation (store/embedded/,
 * store/postgres/). The rest of the library asks store.ts's Store, chosen by open.ts, so that
 * a third store is a folder beside them and one registration there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const IMPLEMENTATION = /(?:from\s+|import\s*\(\s*)['"][^'"]*\bstore\/(?:embedded|postgres)\//;

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the store seam', () => {
  it('is the only way into the stores: no module outside src/store/ imports store/embedded or store/postgres', () => {
    const offenders = sourcesUnder('src')
      .filter((path) => !path.startsWith(join('src', 'store') + sep))
      .flatMap((path) =>
        readFileSync(join(ROOT, path), 'utf8')
          .split('\n')
          .map((text, index) => ({ path, line: index + 1, text }))
          .filter(({ text }) => IMPLEMENTATION.test(text)),
      )
      .map(({ path, line, text }) => `${path}:${line}: ${text.trim()}`);
    expect(offenders).toEqual([]);
  });

  it('catches such an import', () => {
    expect(IMPLEMENTATION.test("import { IndexStore } from '../store/embedded/index-store.js';")).toBe(true);
    expect(IMPLEMENTATION.test("const { PostgresStore } = await import('../store/postgres/postgres-store.js');")).toBe(
      true,
    );
    expect(IMPLEMENTATION.test("import { openStore } from '../store/open.js';")).toBe(false);
  });
});
