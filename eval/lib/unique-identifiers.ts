/**
 * The identifier findability check (issue 29): for every indexed file, an
 * identifier that occurs in that file and in no other (as `grep -w` sees
 * words, case and all), searched alone, must bring the file into the top
 * 10; and where the file defines it, the defining file comes first.
 *
 * An identifier here is what an agent types: camelCase, snake_case or with
 * a digit, six characters or more — not a plain word, which the English of
 * comments shares with every other file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IndexStore, Searcher } from '../../src/internal.js';

/** Whole words as grep -w delimits them (letters, digits, underscore); `$` is left to the identifier. */
const WORD = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** camelCase (a lower letter before an upper one), snake_case (an inner underscore) or with a digit; six characters or more. */
export function isAgentIdentifier(word: string): boolean {
  if (word.length < 6) return false;
  return /[a-z][A-Z]/.test(word) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(word) || /[A-Za-z_$][A-Za-z_$]*\d/.test(word);
}

export interface FindabilityCase {
  /** The file, relative to the root. */
  path: string;
  identifier: string;
}

/**
 * For each file, the first identifier (in reading order) that no other file
 * holds. Files with none are left out. Deterministic: files in path order.
 */
export function uniqueIdentifiers(root: string, paths: readonly string[]): FindabilityCase[] {
  const holders = new Map<string, string | null>();
  const ordered = new Map<string, string[]>();
  for (const path of [...paths].sort()) {
    let text: string;
    try {
      text = readFileSync(join(root, path), 'utf8');
    } catch {
      continue;
    }
    const seen = new Set<string>();
    const list: string[] = [];
    for (const word of text.match(WORD) ?? []) {
      if (seen.has(word)) continue;
      seen.add(word);
      // Every word counts as a holder (a plain word in another file spoils uniqueness too); only identifiers are asked.
      const before = holders.get(word);
      holders.set(word, before === undefined ? path : before === path ? path : null);
      if (isAgentIdentifier(word)) list.push(word);
    }
    ordered.set(path, list);
  }
  const cases: FindabilityCase[] = [];
  for (const [path, list] of ordered) {
    const identifier = list.find((word) => holders.get(word) === path);
    if (identifier) cases.push({ path, identifier });
  }
  return cases;
}

export interface FindabilityResult extends FindabilityCase {
  /** 1-based rank of the file's first result, 0 when not in the top 10. */
  rank: number;
  /** Whether the file defines the identifier (an element of that name), and whether it came first then. */
  defined: boolean;
  /** The top results' paths, for reading misses. */
  top: string[];
}

export interface FindabilitySummary {
  cases: number;
  inTop10: number;
  defined: number;
  definedFirst: number;
  results: FindabilityResult[];
}

/** Searches each case alone and scores it. `definedIn(path, identifier)` says whether the file defines it. */
export async function checkFindability(
  searcher: Searcher,
  cases: readonly FindabilityCase[],
  definedIn: (path: string, identifier: string) => boolean,
): Promise<FindabilitySummary> {
  const results: FindabilityResult[] = [];
  for (const item of cases) {
    const { results: hits } = await searcher.search(item.identifier, { k: 10, snippet: false });
    const rank = hits.findIndex((hit) => hit.path === item.path) + 1;
    results.push({ ...item, rank, defined: definedIn(item.path, item.identifier), top: hits.map((hit) => hit.path) });
  }
  return {
    cases: results.length,
    inTop10: results.filter((result) => result.rank > 0).length,
    defined: results.filter((result) => result.defined).length,
    definedFirst: results.filter((result) => result.defined && result.rank === 1).length,
    results,
  };
}

/**
 * The whole check over an index of `root`: its indexed files, the names each
 * defines (the last segment of its elements' names), and a search per case.
 */
export async function checkIndexFindability(root: string, indexDir: string): Promise<FindabilitySummary> {
  const names = new Map<string, Set<string>>();
  const store = IndexStore.open(indexDir, { readonly: true });
  try {
    for (const rootId of store.roots().keys())
      for (const file of store.files(rootId).values())
        if (file.status === 'indexed')
          names.set(
            file.path,
            new Set(
              store.elementsOfFile(file.id).map((element) => element.name.slice(element.name.lastIndexOf('.') + 1)),
            ),
          );
  } finally {
    store.close();
  }
  const searcher = await Searcher.open({ indexDir });
  try {
    const cases = uniqueIdentifiers(root, [...names.keys()]);
    return await checkFindability(searcher, cases, (path, identifier) => names.get(path)?.has(identifier) ?? false);
  } finally {
    searcher.close();
  }
}
