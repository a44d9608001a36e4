/**
 * The store contract: the same indexing and the same searches through both stores, the
 * embedded one (SQLite + FAISS) and the shared one (PostgreSQL + pgvector, on PGlite served on
 * a loopback port, through the `pg` client production uses), with one ranking above them.
 * Every behaviour is checked on each store, and the two stores' answers against each other:
 * lexical and hybrid searches as far as two builds of one index can agree (BM25 itself is the
 * same bit for bit; ties between equal scores go by element id, which differ between builds).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type IndexerOptions } from '../../src/indexing/indexer.js';
import { storeStatus } from '../../src/indexing/status.js';
import { SearchError } from '../../src/search/errors.js';
import { Searcher, type SearchResponse } from '../../src/search/searcher.js';
import { openStore, type PostgresChoice } from '../../src/store/open.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import {
  type Answer,
  expectSameAnswers,
  searchFixtureFiles,
  storeSources,
  TWO_REPOSITORY_QUERIES,
} from '../helpers/search-repo.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

const QUERIES = [...TWO_REPOSITORY_QUERIES, "password'; DROP TABLE files; --"];

type Kind = 'embedded' | 'postgres';
/** `shared` holds both repositories, `alone` the fixture only, `examples` a name spelled only in a doc comment's example. */
type IndexName = 'shared' | 'alone' | 'examples';
const KINDS: Kind[] = ['embedded', 'postgres'];

let postgres: Postgres;
let fixture: TempRepo;
let sources: TempRepo;
let dirs: TempRepo;
let examples: TempRepo;

/**
 * `PointAdapter` is spelled only in the example of a class's doc comment, above the class (no
 * element's lines hold it); three other files spell the same whole name otherwise
 * (`point_adapter`), which the exact tiers rank next.
 */
function docExampleFiles(): Record<string, string> {
  const other = (n: number) =>
    `def point_adapter(point${n}):\n    """Adapts point ${n} for the adapter registry."""\n    return (point${n}.x, point${n}.y)\n`;
  return {
    'src/main/java/json/TypeAdapter.java': [
      'package json;',
      '',
      '/**',
      ' * Converts objects to JSON and back. Register one for a type you own:',
      ' *',
      ' * <pre>',
      ' * class PointAdapter extends TypeAdapter<Point> {',
      ' *   ...',
      ' * }',
      ' * builder.registerTypeAdapter(Point.class, new PointAdapter());',
      ' * </pre>',
      ' */',
      'public abstract class TypeAdapter<T> {',
      '  /** Writes one value. */',
      '  public abstract String write(T value);',
      '}',
      '',
    ].join('\n'),
    'tools/points_a.py': other(1),
    'tools/points_b.py': other(2),
    'tools/points_c.py': other(3),
  };
}

/** Where each store keeps an index: `shared` holds both repositories, `alone` the fixture only. */
function where(kind: Kind, index: IndexName): { indexDir?: string; store?: PostgresChoice } {
  return kind === 'embedded'
    ? { indexDir: join(dirs.root, index) }
    : { store: { url: postgres.url, schema: `contract_${index}` } };
}

/**
 * One analysis thread: the files then finish, and take their element ids, in the same order in
 * every index, where two threads let the machine's load decide it. Equal scores go by element id.
 */
function index(kind: Kind, indexName: IndexName, path: string, repo: string, extra: Partial<IndexerOptions> = {}) {
  const options = {
    path,
    repo,
    embedder: 'builtin',
    llm: false,
    threads: 1,
    ...where(kind, indexName),
    ...extra,
  } as const;
  return new Indexer(options).run();
}

function open(kind: Kind, indexName: IndexName): Promise<Searcher> {
  const at = where(kind, indexName);
  return Searcher.open(at.store ? { store: at.store } : { indexDir: at.indexDir! });
}

beforeAll(async () => {
  postgres = await startPostgres();
  fixture = tempRepo(searchFixtureFiles());
  sources = tempRepo(storeSources());
  dirs = tempRepo();
  examples = tempRepo(docExampleFiles());
  for (const kind of KINDS) {
    await index(kind, 'examples', examples.root, 'examples');
    await index(kind, 'shared', fixture.root, 'app');
    await index(kind, 'shared', sources.root, 'ocv/store');
    await index(kind, 'alone', fixture.root, 'app');
  }
}, 300_000);

afterAll(async () => {
  for (const repo of [fixture, sources, dirs, examples]) repo?.cleanup();
  await postgres?.stop();
});

/** What a result is, whatever index it came from, with its score. */
function shape(response: SearchResponse): Answer[] {
  return response.results.map((r) => ({
    what: `${r.repo} ${r.path}:${r.startLine}-${r.endLine} ${r.name}`,
    score: r.score,
  }));
}

async function searchAll(
  searcher: Searcher,
  options: { repos?: string[]; mode?: 'hybrid' | 'lexical' } = {},
): Promise<Map<string, Answer[]>> {
  const out = new Map<string, Answer[]>();
  for (const query of QUERIES) out.set(query, shape(await searcher.search(query, { ...options, snippet: false })));
  return out;
}

describe.each(KINDS)('the %s store', (kind) => {
  it('searches every repository, each result naming its own, paths relative to it', async () => {
    const searcher = await open(kind, 'shared');
    try {
      expect(searcher.repositories().map((r) => r.name)).toEqual(['app', 'ocv/store']);
      const both = await searcher.search('hash a password and open the index database', { k: 20 });
      expect(new Set(both.results.map((r) => r.repo))).toEqual(new Set(['app', 'ocv/store']));
      for (const result of both.results)
        expect(result.absolutePath).toBe(join(result.repo === 'app' ? fixture.root : sources.root, result.path));
      const one = await searcher.search('hash a password', { repos: ['ocv/store'], k: 20 });
      expect(one.results.length).toBeGreaterThan(0);
      expect(one.results.every((r) => r.repo === 'ocv/store')).toBe(true);
      // Checked out here: snippets come from disk.
      expect(one.results[0]!.snippet).toBeDefined();
      expect(one.results.every((r) => !r.stale)).toBe(true);
    } finally {
      searcher.close();
    }
  });

  it('ranks a search scoped to one repository as that repository indexed alone', async () => {
    const shared = await open(kind, 'shared');
    const alone = await open(kind, 'alone');
    try {
      expectSameAnswers(await searchAll(shared, { repos: ['app'] }), await searchAll(alone));
    } finally {
      shared.close();
      alone.close();
    }
  });

  it("finds a name spelled only in a doc comment's example, above its class, before other spellings of it", async () => {
    const searcher = await open(kind, 'examples');
    try {
      const { results } = await searcher.search('PointAdapter', { snippet: false });
      expect(results[0]?.path).toBe('src/main/java/json/TypeAdapter.java');
      expect(results.slice(1).some((result) => result.path.startsWith('tools/points_'))).toBe(true);
    } finally {
      searcher.close();
    }
  });

  it("lists a symbol's definitions and every line using it, in the repositories asked for", async () => {
    const searcher = await open(kind, 'shared');
    try {
      const refs = await searcher.references('prepared', { repos: ['ocv/store'] });
      expect(refs.definitions.length).toBeGreaterThan(0);
      expect(refs.files.length).toBeGreaterThan(3);
      expect(refs.files.every((file) => file.repo === 'ocv/store')).toBe(true);
      expect(refs.files.some((file) => file.sites.some((site) => site.call))).toBe(true);
      expect(refs.files.every((file) => file.sites.every((site) => site.text?.includes('prepared')))).toBe(true);
      expect((await searcher.references('prepared', { repos: ['app'] })).files).toEqual([]);
    } finally {
      searcher.close();
    }
  });

  it('refuses unknown and SQL-shaped repository names with a clear error, and serves on', async () => {
    const searcher = await open(kind, 'shared');
    try {
      for (const repos of [['nope'], ["app'; DROP TABLE files; --"], []]) {
        const error = await searcher.search('password', { repos }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SearchError);
        expect((error as Error).message).not.toContain('ocv/store');
      }
      expect((await searcher.search('password', { repos: ['app'] })).results.length).toBeGreaterThan(0);
    } finally {
      searcher.close();
    }
    await expect(index(kind, 'shared', sources.root, '../x')).rejects.toMatchObject({ code: 'BAD_NAME' });
  });

  it('lists the repositories with their counts, commit and indexing time', async () => {
    const at = where(kind, 'shared');
    const status = await storeStatus(await openStore(at.store, at));
    expect(status.repositories.map((r) => r.name)).toEqual(['app', 'ocv/store']);
    for (const repository of status.repositories) {
      expect(repository.files).toBeGreaterThan(0);
      expect(repository.elements).toBeGreaterThan(0);
      expect(repository.indexedAt).not.toBeNull();
    }
    expect(status.elements).toBe(status.repositories.reduce((sum, r) => sum + r.elements, 0));
    expect(status.stale).toEqual({ modified: [], deleted: [], added: [] });
    expect(status.embedder?.id).toMatch(/^builtin/);
  });

  it('re-indexes only what changed, touching only its own repository', async () => {
    const repo = tempRepo({
      'a.ts': 'export function alphaWidget(): number {\n  return 1;\n}\n',
      'b.ts': 'export function betaGadget(): number {\n  return 2;\n}\n',
    });
    try {
      const first = await index(kind, 'shared', repo.root, 'scratch');
      expect(first.files.added).toBe(2);
      const untouched = await index(kind, 'shared', repo.root, 'scratch');
      expect(untouched.files.unchanged).toBe(2);
      expect(untouched.embeddings.computed).toBe(0);
      repo.write('b.ts', 'export function betaGadget(): number {\n  return 2;\n}\n\nexport const gammaThing = 3;\n');
      repo.remove('a.ts');
      const changed = await index(kind, 'shared', repo.root, 'scratch');
      expect(changed.files).toMatchObject({ changed: 1, deleted: 1 });
      expect(changed.elements.kept).toBe(1);
      const searcher = await open(kind, 'shared');
      try {
        const hits = await searcher.search('gammaThing', { repos: ['scratch'] });
        expect(hits.results[0]).toMatchObject({ repo: 'scratch', path: 'b.ts', name: 'gammaThing' });
        expect((await searcher.search('alphaWidget', { repos: ['scratch'], mode: 'lexical' })).results).toEqual([]);
        // The other repositories answer as before.
        expect((await searcher.search('hashPassword', { repos: ['app'] })).results.length).toBeGreaterThan(0);
      } finally {
        searcher.close();
      }
      const at = where(kind, 'shared');
      const dropped = await (await openStore(at.store, at)).dropRepository('scratch');
      expect(dropped).toMatchObject({ repo: 'scratch', files: 1 });
      const after = await open(kind, 'shared');
      try {
        expect(after.repositories().map((r) => r.name)).toEqual(['app', 'ocv/store']);
      } finally {
        after.close();
      }
    } finally {
      repo.cleanup();
    }
  });
});

/** The shared index through both stores, closed after the check whatever it finds. */
async function bothStores(check: (embedded: Searcher, shared: Searcher) => Promise<void>): Promise<void> {
  const embedded = await open('embedded', 'shared');
  const shared = await open('postgres', 'shared');
  try {
    await check(embedded, shared);
  } finally {
    embedded.close();
    shared.close();
  }
}

describe('the two stores, against each other', () => {
  it('answer lexical searches the same, together and scoped', () =>
    bothStores(async (embedded, shared) => {
      // BM25 is the same bit for bit (postgres-lexical.test.ts); what a whole file's hits add up to
      // may differ by a candidate at the edge of a list, where equal scores go by element id.
      for (const options of [{}, { repos: ['app'] }, { repos: ['ocv/store'] }]) {
        const want = await searchAll(embedded, { ...options, mode: 'lexical' });
        const got = await searchAll(shared, { ...options, mode: 'lexical' });
        for (const [query, list] of want) {
          const other = got.get(query)!;
          expect(new Set(other.map((r) => r.what)), query).toEqual(new Set(list.map((r) => r.what)));
          const scoreOf = new Map(list.map((r) => [r.what, r.score]));
          for (const r of other)
            expect(Math.abs(r.score - scoreOf.get(r.what)!), `${query}: ${r.what}`).toBeLessThan(0.01);
        }
      }
    }));

  it('answer hybrid searches the same', () =>
    bothStores(async (embedded, shared) => {
      expectSameAnswers(await searchAll(shared), await searchAll(embedded));
      expectSameAnswers(
        await searchAll(shared, { repos: ['ocv/store'] }),
        await searchAll(embedded, { repos: ['ocv/store'] }),
      );
    }));

  it('answer a file search the same, the file the traceback fails in first', () =>
    bothStores(async (embedded, shared) => {
      // A JavaScript traceback through the project's CSV parser, in an issue of prose around it.
      const issue = [
        'Quoted fields with a newline break the importer',
        '',
        'Importing a spreadsheet export whose quoted cells hold line breaks splits the row in two.',
        '```',
        'TypeError: Cannot read properties of undefined (reading trim)',
        '    at parseCsv (/home/me/app/src/util/csv.ts:4:22)',
        '    at importRows (/home/me/app/src/import.ts:10:3)',
        '```',
      ].join('\n');
      for (const options of [{}, { repos: ['app'] }]) {
        const files = async (searcher: Searcher) =>
          (await searcher.searchFiles(issue, { ...options, k: 5 })).files.map((file) => `${file.repo} ${file.path}`);
        const want = await files(embedded);
        expect(want[0]).toBe('app src/util/csv.ts');
        expect(await files(shared)).toEqual(want);
      }
    }));

  it('list the same references', () =>
    bothStores(async (embedded, shared) => {
      for (const symbol of ['prepared', 'hashPassword', 'IndexStore.open', 'transaction']) {
        const strip = (r: Awaited<ReturnType<Searcher['references']>>) => ({
          definitions: r.definitions,
          files: r.files,
          total: r.total,
        });
        expect(strip(await shared.references(symbol)), symbol).toEqual(strip(await embedded.references(symbol)));
      }
    }));
});
