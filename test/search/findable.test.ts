/**
 * Every indexed file is findable: on real code (this repository's src/),
 * a word that occurs in one file alone, searched as it is, brings that file
 * into the top 10. Before code was in the lexical index, and before code
 * outside elements was chunked, a third of a web framework's files failed this.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher, stem, words } from '../../src/internal.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SOURCE = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/**
 * For each file, the first word (of three letters or more) that no other
 * file holds, as the index sees words: `configured` is not unique where
 * another file says `configure`, since both are stemmed alike.
 */
function uniqueWords(files: string[]): Map<string, string> {
  const holders = new Map<string, Set<string>>();
  const ordered = new Map<string, string[]>();
  for (const file of files) {
    const list = words(readFileSync(file, 'utf8')).filter(
      (word) => word.length >= 3 && /^[A-Za-z_$][\w$]*$/.test(word),
    );
    ordered.set(file, list);
    // The path's words are indexed too (`cli` of src/cli/).
    for (const word of [...list, ...words(relative(ROOT, file))])
      (holders.get(key(word)) ?? holders.set(key(word), new Set()).get(key(word))!).add(file);
  }
  const unique = new Map<string, string>();
  for (const [file, list] of ordered) {
    const word = list.find((candidate) => holders.get(key(candidate))!.size === 1);
    if (word) unique.set(file, word);
  }
  return unique;
}

const key = (word: string) => stem(word.toLowerCase());

describe('every indexed file is findable', () => {
  let indexDir: string;
  let searcher: Searcher;
  const files = sourceFiles(SOURCE);

  beforeAll(async () => {
    indexDir = mkdtempSync(join(tmpdir(), 'ocvector-findable-'));
    await new Indexer({ path: SOURCE, root: ROOT, indexDir, embedder: 'builtin', llm: false }).run();
    searcher = await Searcher.open({ indexDir });
  });
  afterAll(() => {
    searcher.close();
    rmSync(indexDir, { recursive: true, force: true });
  });

  it('a word found in one file alone brings that file into the top 10, for at least 98% of the files', async () => {
    const unique = uniqueWords(files);
    expect(unique.size).toBeGreaterThan(files.length * 0.7);
    const missed: string[] = [];
    for (const [file, word] of unique) {
      const path = relative(ROOT, file);
      const { results } = await searcher.search(word, { k: 10, snippet: false });
      if (!results.some((result) => result.path === path)) missed.push(`${path} (${word})`);
    }
    const found = (unique.size - missed.length) / unique.size;
    expect(found, `not found: ${missed.join(', ')}`).toBeGreaterThanOrEqual(0.98);
  });
});
