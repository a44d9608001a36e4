/**
 * An index updated through a history of commits answers as a fresh build of the last tree
 * (issue 55, "rank as a fresh index would"), on both stores: the same results with the same
 * scores, for every query, where the only freedom left is the order of results whose scores
 * are equal (broken by element id, which differs between the two builds).
 *
 * The history adds, changes, renames and deletes files that share their words, so that
 * BM25's statistics (rows, average length, documents per term) move with every commit: an
 * index that kept a deleted row in them (a contentless_delete FTS5 table) scored otherwise.
 */
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Searcher, type SearchResult } from '../../src/search/searcher.js';
import type { PostgresChoice } from '../../src/store/open.js';
import { indexBuiltin } from '../helpers/index-builtin.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

const WORDS = ['session', 'token', 'cache', 'request', 'handler', 'parse', 'config', 'user', 'retry', 'queue'];

/** A module on `topic`, with functions whose names and comments mix the shared words (`salt` varies the text). */
function moduleOf(topic: string, salt: number, functions = 3): string {
  const parts = [`/** The ${topic} module: ${WORDS[salt % WORDS.length]} and ${WORDS[(salt + 3) % WORDS.length]}. */`];
  for (let i = 0; i < functions; i++) {
    const a = WORDS[(salt + i) % WORDS.length]!;
    const b = WORDS[(salt + 2 * i + 1) % WORDS.length]!;
    parts.push(
      `/** Reads the ${a} of a ${b}, for the ${topic}. */`,
      `export function ${a}${b[0]!.toUpperCase()}${b.slice(1)}${i}(${b}: string): string {`,
      `  const ${a} = ${b}.split('${topic}');`,
      `  return ${a}.join('${a}-${b}') + '${topic}';`,
      '}',
    );
  }
  return `${parts.join('\n')}\n`;
}

/** Each commit's changes: files written (path -> content) and files removed. */
interface Commit {
  write?: Record<string, string>;
  remove?: string[];
}

const HISTORY: Commit[] = [
  {
    write: {
      'src/session.ts': moduleOf('session', 0, 4),
      'src/token.ts': moduleOf('token', 1),
      'src/cache.ts': moduleOf('cache', 2, 5),
      'docs/guide.md':
        '# Guide\n\nHow the session cache keeps a token per user.\n\n## Retry\n\nA request is retried from the queue.\n',
    },
  },
  { write: { 'src/request.ts': moduleOf('request', 3), 'src/token.ts': moduleOf('token', 4, 2) } },
  { write: { 'src/handler.ts': moduleOf('handler', 5, 6) }, remove: ['src/cache.ts'] },
  // A rename: the same text under another path.
  { write: { 'src/auth/session.ts': moduleOf('session', 0, 4) }, remove: ['src/session.ts'] },
  { write: { 'src/parse.ts': moduleOf('parse', 6), 'src/config.ts': moduleOf('config', 7, 4) } },
  { write: { 'src/handler.ts': moduleOf('handler', 8, 2) }, remove: ['docs/guide.md'] },
  { write: { 'src/cache.ts': moduleOf('cache', 9, 3), 'src/queue.ts': moduleOf('queue', 1, 5) } },
  { remove: ['src/request.ts', 'src/parse.ts'] },
  {
    write: {
      'src/config.ts': moduleOf('config', 2, 6),
      'docs/retry.md': '# Retry\n\nA handler retries the request.\n',
    },
  },
  { write: { 'src/token.ts': moduleOf('token', 5, 4), 'src/user.ts': moduleOf('user', 3, 3) } },
];

/** The tree after the whole history. */
function finalTree(): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const commit of HISTORY) {
    Object.assign(tree, commit.write);
    for (const path of commit.remove ?? []) delete tree[path];
  }
  return tree;
}

const QUERIES = [
  ...WORDS,
  'sessionToken0',
  'cacheRequest1',
  'read the token of a user',
  'retry a request from the queue',
  'session cache',
  'parse the config',
  'handler for the session',
  'user queue retry token',
  'auth session',
  'src/config.ts',
];

/** Written files look checked out a while ago: no run reads one twice for a recent mtime. */
function age(repo: TempRepo, paths: Iterable<string>): void {
  const past = new Date(Date.now() - 60_000);
  for (const path of paths) utimesSync(join(repo.root, path), past, past);
}

type Answer = Pick<SearchResult, 'path' | 'name' | 'startLine' | 'score'>;

/** Every query's answers, as many as the index has for it. */
async function answers(searcher: Searcher): Promise<Answer[][]> {
  const out: Answer[][] = [];
  for (const query of QUERIES) {
    const { results } = await searcher.search(query, { k: 100, snippet: false });
    out.push(results.map(({ path, name, startLine, score }) => ({ path, name, startLine, score })));
  }
  return out;
}

/**
 * The same scores in the same order, and among results of one score the same elements: an
 * element's order among its equals is free. The last group may be cut by the result limit,
 * differently in each: only its scores are compared.
 */
function expectSameUpToTies(updated: Answer[][], fresh: Answer[][]): void {
  QUERIES.forEach((query, q) => {
    const a = updated[q]!;
    const b = fresh[q]!;
    expect(
      a.map((r) => r.score),
      query,
    ).toEqual(b.map((r) => r.score));
    const key = (r: Answer) => `${r.path}#${r.name}@${r.startLine}`;
    for (let start = 0; start < a.length; ) {
      let end = start + 1;
      while (end < a.length && a[end]!.score === a[start]!.score) end++;
      if (end < a.length || a.length < 100)
        expect(a.slice(start, end).map(key).sort(), `${query}, results ${start + 1} to ${end}`).toEqual(
          b.slice(start, end).map(key).sort(),
        );
      start = end;
    }
  });
}

interface Build {
  index(root: string, name: string): Promise<void>;
  open(name: string): Promise<Searcher>;
}

/** Indexes the history commit by commit into one index, and the last tree into a fresh one; both answer the same. */
async function compareWithFresh(build: Build): Promise<void> {
  const updated = tempRepo();
  const fresh = tempRepo();
  try {
    for (const commit of HISTORY) {
      for (const [path, content] of Object.entries(commit.write ?? {})) updated.write(path, content);
      for (const path of commit.remove ?? []) updated.remove(path);
      age(updated, Object.keys(commit.write ?? {}));
      await build.index(updated.root, 'updated');
    }
    const tree = finalTree();
    for (const [path, content] of Object.entries(tree)) fresh.write(path, content);
    age(fresh, Object.keys(tree));
    await build.index(fresh.root, 'fresh');

    const [a, b] = [await build.open('updated'), await build.open('fresh')];
    try {
      const [fromUpdated, fromFresh] = [await answers(a), await answers(b)];
      expect(fromFresh.every((list) => list.length > 0)).toBe(true);
      expectSameUpToTies(fromUpdated, fromFresh);
    } finally {
      await a.close();
      await b.close();
    }
  } finally {
    updated.cleanup();
    fresh.cleanup();
  }
}

describe('an index updated through a history answers as a fresh build of the same tree', () => {
  it('in the embedded store (SQLite FTS5 and FAISS)', async () => {
    const roots = new Map<string, string>();
    await compareWithFresh({
      index: async (root, name) => {
        roots.set(name, root);
        await indexBuiltin(root, { threads: 1 });
      },
      open: (name) => Searcher.open({ indexDir: join(roots.get(name)!, '.ocvector') }),
    });
  }, 30_000);

  describe('in the PostgreSQL store', () => {
    let postgres: Postgres;
    beforeAll(async () => {
      postgres = await startPostgres();
    }, 60_000);
    afterAll(async () => {
      await postgres?.stop();
    });

    it('(PGlite, pgvector)', async () => {
      const store = (schema: string): PostgresChoice => ({ url: postgres.url, schema });
      await compareWithFresh({
        index: async (root, name) => {
          await indexBuiltin(root, { store: store(name), repo: 'app', threads: 1 });
        },
        open: (name) => Searcher.open({ store: store(name) }),
      });
    }, 60_000);
  });
});
