/**
 * Offline corpora of real code for the benchmarks: the TypeScript
 * compiler's lib/ files (a subset, or several copies), indexed with the
 * built-in embedder; and queries taken from the corpus itself.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeText, Indexer, IndexStore } from '../../src/internal.js';
import { ms } from '../../eval/lib/stats.js';

export const LIB = fileURLToPath(new URL('../../node_modules/typescript/lib', import.meta.url));

export const libFiles = readdirSync(LIB)
  .filter((f) => /\.(d\.ts|js)$/.test(f))
  .sort();

/** lib/ files in name order until they hold `wanted` elements (counted with the analyzer). */
export function libSubset(wanted: number): string[] {
  const chosen: string[] = [];
  let elements = 0;
  for (const file of libFiles) {
    if (elements >= wanted) break;
    const result = analyzeText(file, readFileSync(join(LIB, file), 'utf8'));
    chosen.push(file);
    elements += result.elements.length;
  }
  return chosen;
}

/** `count` copies of `files` under `dir`, indexed (built-in embedder, no model); returns `dir`. */
export async function buildCorpus(
  dir: string,
  copies: { files: string[]; count: number },
  log: (message: string) => void,
): Promise<string> {
  for (let c = 0; c < copies.count; c++) {
    mkdirSync(join(dir, `copy${c}`), { recursive: true });
    for (const file of copies.files) cpSync(join(LIB, file), join(dir, `copy${c}`, file));
  }
  const started = performance.now();
  const summary = await new Indexer({
    path: dir,
    embedder: 'builtin',
    llm: false,
    limits: { maxBytes: 16 << 20 },
  }).run();
  log(`${dir}: ${summary.elements.total} elements indexed in ${ms(performance.now() - started, 0)}`);
  return dir;
}

/** `count` queries from the corpus itself: 60% doc comments' first words, 25% names, 15% name fragments. */
export function pickQueries(indexDir: string, count: number): string[] {
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    const elements = store.elementSummaries();
    const described = elements
      .filter((row) => row.description.length > 30)
      .map((row) => row.description.split(/[.\n]/)[0]!.split(/\s+/).slice(0, 8).join(' '))
      .filter((text) => text.split(' ').length >= 4);
    const named = new Set(['function', 'method', 'class', 'interface']);
    const names = elements.filter((row) => named.has(row.type)).map((row) => row.name);
    const every = <T>(items: T[], n: number) =>
      Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
    const nNames = Math.round(count * 0.25);
    const nFragments = Math.round(count * 0.15);
    const fragments = every(names, nFragments).map((name) =>
      name
        .replace(/^.*\./, '')
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase()
        .split(' ')
        .slice(0, 2)
        .join(' '),
    );
    return [...every(described, count - nNames - nFragments), ...every(names, nNames), ...fragments];
  } finally {
    store.close();
  }
}
