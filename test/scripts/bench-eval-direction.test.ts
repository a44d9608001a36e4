/**
 * bench/ and eval/ depend in one direction: a benchmark may time what an
 * evaluation loads (its sets, its corpora, its snapshots) and share its
 * report helpers (eval/lib/stats.ts, readme.ts, machine.ts), while no
 * evaluation imports a benchmark, so that either can be read, run and
 * changed knowing everything it depends on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = /\.(?:ts|mts|mjs|js)$/;
/** The module of a static import or export, or of a dynamic import(). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** The sources under `dir` (relative to the root), leaving out caches and other dot-folders. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name.startsWith('.') || entry.name === 'node_modules' ? [] : sourcesUnder(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** Each relative import in `text` (of the file at `path`) that lands under `target`, as `path: specifier`. */
function importsInto(path: string, text: string, target: string): string[] {
  return [...text.matchAll(SPECIFIER)]
    .map((match) => match[1]!)
    .filter((specifier) => specifier.startsWith('.'))
    .filter((specifier) => relative(ROOT, resolve(ROOT, dirname(path), specifier)).startsWith(target + sep))
    .map((specifier) => `${path}: ${specifier}`);
}

function importsBetween(from: string, to: string): string[] {
  return sourcesUnder(from).flatMap((path) => importsInto(path, readFileSync(join(ROOT, path), 'utf8'), to));
}

describe('bench/ and eval/', () => {
  it('depend in one direction: no file under eval/ imports one under bench/', () => {
    expect(importsBetween('eval', 'bench')).toEqual([]);
  });

  it('catches an evaluation that imports a benchmark, statically or not', () => {
    expect(importsInto(join('eval', 'run.ts'), "import { printTable } from '../bench/lib/stats.js';", 'bench')).toEqual(
      ['eval/run.ts: ../bench/lib/stats.js'],
    );
    expect(
      importsInto(join('eval', 'lib', 'a.ts'), "const m = await import('../../bench/lib/gpu.js');", 'bench'),
    ).toEqual(['eval/lib/a.ts: ../../bench/lib/gpu.js']);
    expect(importsInto(join('eval', 'run.ts'), "import { ROOT } from './lib/corpora.js';", 'bench')).toEqual([]);
  });
});
