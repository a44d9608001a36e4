import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BuiltinEmbedder,
  Indexer,
  Searcher,
  SearchError,
  StoreError,
  type Embedder,
  type SearchResult,
} from '../../src/index.js';
import { FakeOllama, fakeEmbeddingServer } from '../helpers/fake-ollama.js';
import { cleanedUpAfterEach, tempRepo } from '../helpers/repo.js';
import { LABELS, searchRepo } from '../helpers/search-repo.js';
import { openSqlite } from '../../src/store/embedded/sqlite.js';

const expectedNames = (expected: string | string[]) => [expected].flat();

describe('Searcher on the labelled fixture (built-in embedder)', () => {
  const repo = searchRepo();
  let searcher: Searcher;

  beforeAll(async () => {
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    await indexer.run();
    searcher = await Searcher.open({ indexDir: indexer.indexDir });
  });
  afterAll(() => {
    searcher.close();
    repo.cleanup();
  });

  // Top 5, not 3: results are spread over files, so the third hit of the right file
  // (fetchWithRetry, after RetryOptions and backoffDelay) may come after another file's first.
  it.each(LABELS)('ranks the expected element in the top 5 for "$query"', async ({ query, expected }) => {
    const response = await searcher.search(query, { k: 5 });
    const names = response.results.map((result) => result.name);
    expect(
      names.some((name) => expectedNames(expected).includes(name)),
      `top 5 was ${names.join(', ')}`,
    ).toBe(true);
  });

  it('hybrid ranks at least as well as lexical alone on the fixture (mean reciprocal rank), with the vectors in it', async () => {
    const reciprocalRank = (results: SearchResult[], expected: string | string[]) => {
      const rank = results.findIndex((result) => expectedNames(expected).includes(result.name)) + 1;
      return rank > 0 ? 1 / rank : 0;
    };
    const ranking = (results: SearchResult[]) => results.map((result) => [result.name, result.score]);
    let hybridSum = 0;
    let lexicalSum = 0;
    for (const { query, expected } of LABELS) {
      const hybrid = await searcher.search(query, { k: 10, mode: 'hybrid' });
      const lexical = await searcher.search(query, { k: 10, mode: 'lexical' });
      // Hybrid that fell back, or whose vector side found nothing or weighs nothing, would be lexical under its name.
      expect(hybrid).toMatchObject({ requestedMode: 'hybrid', mode: 'hybrid' });
      expect(hybrid.fallback).toBeUndefined();
      expect(
        hybrid.results.some((result) => result.signals.vector !== undefined),
        `no result of "${query}" found by the vectors`,
      ).toBe(true);
      expect(ranking(hybrid.results), query).not.toEqual(ranking(lexical.results));
      hybridSum += reciprocalRank(hybrid.results, expected);
      lexicalSum += reciprocalRank(lexical.results, expected);
    }
    expect(hybridSum / LABELS.length).toBeGreaterThanOrEqual(lexicalSum / LABELS.length);
  });

  it('routes an identifier to its exact name, and says which signals found it', async () => {
    const response = await searcher.search('issueToken');
    expect(response.kind).toBe('identifier');
    expect(response.results[0]).toMatchObject({
      name: 'SessionManager.issueToken',
      type: 'method',
      path: 'src/auth/session.ts',
      signals: { name: 'exact' },
    });
    expect(response.results[0]!.signals.lexical).toBe(1);
    const qualified = await searcher.search('SessionManager.validateToken');
    expect(qualified.results[0]!.name).toBe('SessionManager.validateToken');
  });

  it('confines a path query to the files it names', async () => {
    const response = await searcher.search('src/auth');
    expect(response.kind).toBe('path');
    expect(response.results.length).toBeGreaterThan(0);
    for (const result of response.results) expect(result.path.startsWith('src/auth/')).toBe(true);
    const file = await searcher.search('rate-limiter.ts');
    expect(new Set(file.results.map((result) => result.path))).toEqual(new Set(['src/net/rate-limiter.ts']));
  });

  it('filters by path prefix, glob, language and element type, on both halves of the search', async () => {
    const under = await searcher.search('token', { path: 'src/net', k: 20 });
    expect(under.results.length).toBeGreaterThan(0);
    for (const result of under.results) expect(result.path.startsWith('src/net/')).toBe(true);

    const python = await searcher.search('remove duplicates checksum', { path: '**/*.py', k: 20 });
    expect(python.results.map((result) => result.path)).toEqual(expect.arrayContaining(['tools/dedupe.py']));
    for (const result of python.results) expect(result.path).toMatch(/\.py$/);
    const byLanguage = await searcher.search('remove duplicates checksum', { language: 'python', k: 20 });
    expect(byLanguage.results.map((result) => result.name).sort()).toEqual(
      python.results.map((result) => result.name).sort(),
    );

    const methods = await searcher.search('token', { type: 'method', k: 20 });
    expect(methods.results.length).toBeGreaterThan(1);
    for (const result of methods.results) expect(result.type).toBe('method');

    const vectorOnly = await searcher.search('password', { mode: 'vector', language: 'markdown', k: 20 });
    expect(vectorOnly.mode).toBe('vector');
    expect(vectorOnly.results.length).toBeGreaterThan(0);
    for (const result of vectorOnly.results) expect(result.language).toBe('markdown');

    const nothing = await searcher.search('password', { path: 'no/such/dir' });
    expect(nothing.results).toEqual([]);
  });

  it('never lists a hit inside another listed hit of the same file', async () => {
    for (const query of ['token bucket refill', 'least recently used cache', 'session token signature']) {
      const { results } = await searcher.search(query, { k: 10 });
      expect(new Set(results.map((result) => result.path)).size, query).toBeLessThan(results.length);
      for (const a of results) {
        for (const b of results) {
          if (a === b || a.path !== b.path) continue;
          expect(a.startLine <= b.startLine && b.endLine <= a.endLine, `${a.name} contains ${b.name}`).toBe(false);
        }
      }
    }
  });

  it('returns each result with its location, names, score and the code read from disk', async () => {
    const { results } = await searcher.search('verify a password against the stored hash', { k: 1 });
    const top = results[0]!;
    expect(top).toMatchObject({
      path: 'src/auth/passwords.ts',
      type: 'function',
      name: 'verifyPassword',
      stale: false,
      language: 'typescript',
    });
    expect(top.absolutePath).toBe(join(repo.root, 'src/auth/passwords.ts'));
    expect(top.signature).toContain('verifyPassword(password: string, stored: string): boolean');
    expect(top.description).toContain('constant time');
    const lines = readFileSync(top.absolutePath, 'utf8').split('\n');
    expect(top.snippet).toBe(lines.slice(top.startLine - 1, top.endLine).join('\n'));
    expect(top.score).toBeGreaterThan(0);
  });

  it('cuts snippets to the limit and can leave them out', async () => {
    const { results } = await searcher.search('parseCsv', { k: 1, snippet: { maxLines: 3 } });
    // Code only: how many lines follow is a field, not a line of the snippet.
    const top = results[0]!;
    expect(top.snippet!.split('\n')).toHaveLength(3);
    expect(top.snippet).not.toMatch(/more line/);
    expect(top.snippetMoreLines).toBe(top.endLine - top.startLine + 1 - 3);
    const bare = await searcher.search('parseCsv', { k: 1, snippet: false });
    expect(bare.results[0]!.snippet).toBeUndefined();
  });

  it('rejects bad queries and options with a SearchError naming the problem', async () => {
    await expect(searcher.search('')).rejects.toThrow(/the query is empty/);
    await expect(searcher.search('   ')).rejects.toBeInstanceOf(SearchError);
    await expect(searcher.search(42 as unknown as string)).rejects.toThrow(/must be a string, not number/);
    await expect(searcher.search('x'.repeat(5_000))).rejects.toThrow(/5000 characters long/);
    for (const k of [0, -1, 2.5, 1_000, Number.NaN])
      await expect(searcher.search('token', { k })).rejects.toThrow(/k must be an integer from 1 to 100/);
    await expect(searcher.search('token', { mode: 'fuzzy' as never })).rejects.toThrow(
      /mode must be hybrid, lexical or vector/,
    );
    // FTS5 syntax in a query is text, never syntax.
    for (const query of ['"unbalanced', 'token* AND (bucket', 'NEAR(a b)', 'col:value', '^^^ token', '😀 emoji']) {
      await expect(searcher.search(query)).resolves.toMatchObject({ query });
    }
    // Punctuation alone has nothing to search for.
    await expect(searcher.search('^^^')).rejects.toThrow(/no words to search for/);
  });
});

/** The fixture indexed with the embedding model of a fake Ollama server (left running). */
async function indexedWithOllama(owned: ReturnType<typeof cleanedUpAfterEach>) {
  const fake = (owned.fake = await fakeEmbeddingServer(64));
  const repo = (owned.repo = searchRepo());
  const indexer = new Indexer({ path: repo.root, embedder: { host: fake.url, model: 'fake-embed' }, llm: false });
  await indexer.run();
  return { fake, indexer };
}

/** The fixture indexed with the built-in embedder, and a Searcher open on it (the repository removed after the test). */
async function indexedFixture(owned: ReturnType<typeof cleanedUpAfterEach>) {
  const repo = (owned.repo = searchRepo());
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  return { repo, indexer, searcher: await Searcher.open({ indexDir: indexer.indexDir }) };
}

/** These files, their times in the past, indexed with the built-in embedder, and a Searcher open on them. */
async function searcherOn(owned: ReturnType<typeof cleanedUpAfterEach>, files: Record<string, string>) {
  const repo = (owned.repo = tempRepo(files));
  repo.age();
  const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
  await indexer.run();
  return Searcher.open({ indexDir: indexer.indexDir });
}

describe('Searcher freshness and fallback', () => {
  const owned = cleanedUpAfterEach();

  it('marks a result stale when its file changed, and shows the file as it is now', async () => {
    const { repo, searcher } = await indexedFixture(owned);
    try {
      const path = join(repo.root, 'src/util/csv.ts');
      const before = readFileSync(path, 'utf8').split('\n');
      writeFileSync(path, `// a new first line\n${before.join('\n')}`);
      const { results } = await searcher.search('parseCsv', { k: 1 });
      const top = results[0]!;
      expect(top).toMatchObject({ name: 'parseCsv', stale: true });
      // The indexed lines, read from the file as it is now: shifted by the new line.
      expect(top.snippet!.split('\n')[0]).toBe(before[top.startLine - 2]);

      // Touched but unchanged: not stale.
      const other = join(repo.root, 'src/util/config.ts');
      writeFileSync(other, readFileSync(other));
      expect((await searcher.search('loadConfig', { k: 1 })).results[0]).toMatchObject({
        name: 'loadConfig',
        stale: false,
      });

      repo.remove('tools/dedupe.py');
      const gone = (await searcher.search('file_checksum', { k: 1 })).results[0]!;
      expect(gone).toMatchObject({ name: 'file_checksum', stale: true, problem: 'the file is gone' });
      expect(gone.snippet).toBeUndefined();
    } finally {
      searcher.close();
    }
  });

  it('a searcher kept open sees what an indexer committed since', async () => {
    const { repo, indexer, searcher } = await indexedFixture(owned);
    try {
      expect((await searcher.search('celsiusToFahrenheit')).results.map((r) => r.name)).not.toContain(
        'celsiusToFahrenheit',
      );
      repo.write(
        'src/util/units.ts',
        '/** Converts a temperature. */\nexport function celsiusToFahrenheit(c: number): number {\n  return c * 1.8 + 32;\n}\n',
      );
      repo.remove('src/auth/passwords.ts');
      await indexer.run();
      const after = await searcher.search('celsiusToFahrenheit', { mode: 'vector', k: 3 });
      expect(after.results[0]!.name).toBe('celsiusToFahrenheit');
      expect(after.elements).toBe((await searcher.search('x', { k: 1 })).elements);
      const passwords = await searcher.search('hash a password', { k: 20 });
      expect(passwords.results.map((r) => r.path)).not.toContain('src/auth/passwords.ts');
    } finally {
      searcher.close();
    }
  });

  it("embeds the query with the index's Ollama model, and falls back to lexical when the server is down", async () => {
    const { fake, indexer } = await indexedWithOllama(owned);

    const events: string[] = [];
    const searcher = await Searcher.open({
      indexDir: indexer.indexDir,
      ollama: { host: fake.url },
      onEvent: (event) => events.push(event.type),
    });
    try {
      const embedsBefore = fake.embeds.length;
      const up = await searcher.search('hash a password with a salt', { k: 3 });
      expect(up).toMatchObject({ mode: 'hybrid', embedder: 'ollama:fake-embed' });
      expect(up.fallback).toBeUndefined();
      expect(up.results[0]!.signals.vector).toBeDefined();
      expect(fake.embeds.length).toBe(embedsBefore + 1);
      expect(fake.embeds.at(-1)!.model).toBe('fake-embed');

      await fake.close();
      delete owned.fake;
      const down = await searcher.search('hash a password with a salt', { k: 3 });
      expect(down.mode).toBe('lexical');
      expect(down.fallback?.reason).toMatch(
        /the embedder ollama:fake-embed is unavailable .*answered by lexical search/,
      );
      expect(down.results[0]!.name).toBe('hashPassword');
      expect(down.results.every((r: SearchResult) => r.signals.vector === undefined)).toBe(true);
      expect(events).toContain('fallback');
    } finally {
      searcher.close();
    }
  });

  it('never asks the Ollama host the index was built with: a searcher given no host asks the local default, a given host wins', async () => {
    const { fake, indexer } = await indexedWithOllama(owned);

    const unnamed = await Searcher.open({ indexDir: indexer.indexDir });
    try {
      const embedsBefore = fake.embeds.length;
      const response = await unnamed.search('hash a password with a salt', { k: 3 });
      expect(response.embedder).toBe('ollama:fake-embed');
      expect(fake.embeds.length).toBe(embedsBefore);
    } finally {
      unnamed.close();
    }

    const elsewhere = await FakeOllama.refusingUrl();
    const explicit = await Searcher.open({ indexDir: indexer.indexDir, ollama: { host: elsewhere } });
    try {
      const response = await explicit.search('hash a password with a salt', { k: 3 });
      expect(response.mode).toBe('lexical');
      expect(response.fallback?.reason).toContain(elsewhere);
    } finally {
      explicit.close();
    }
  });

  it('an explicit vector search that cannot embed rejects (EMBEDDER_UNAVAILABLE); hybrid answers lexically, saying why', async () => {
    const { fake, indexer } = await indexedWithOllama(owned);
    const host = fake.url;
    await fake.close();
    delete owned.fake;

    const searcher = await Searcher.open({ indexDir: indexer.indexDir, ollama: { host } });
    try {
      const rejected = await searcher.search('hash a password', { mode: 'vector' }).catch((error: unknown) => error);
      expect(rejected).toBeInstanceOf(SearchError);
      expect(rejected).toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
      expect((rejected as Error).message).toMatch(/no Ollama server answers at http:\/\/127\.0\.0\.1:\d+/);
      expect((rejected as Error).message).toMatch(/ollama serve/);
      // Again while the searcher waits before retrying the embedder: still a rejection, not lexical answers.
      await expect(searcher.search('hash a password', { mode: 'vector' })).rejects.toMatchObject({
        code: 'EMBEDDER_UNAVAILABLE',
      });
      const hybrid = await searcher.search('hash a password', { k: 3 });
      expect(hybrid).toMatchObject({ requestedMode: 'hybrid', mode: 'lexical' });
      expect(hybrid.fallback?.reason).toMatch(/no Ollama server answers at .*answered by lexical search/);
    } finally {
      searcher.close();
    }
  });

  it("weighs the query's words by how rare they are in the index, and never writes to it", async () => {
    const repo = (owned.repo = searchRepo());
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    await indexer.run();
    const database = join(indexer.indexDir, 'index.db');
    const before = readFileSync(database);
    const weights = new Map<string, number>();
    const builtin = new BuiltinEmbedder();
    const spy: Embedder = {
      id: builtin.id,
      dimension: builtin.dimension,
      calls: 0,
      init: () => builtin.init(),
      embedDocuments: (texts) => builtin.embedDocuments(texts),
      embedQuery: async (text, options) => {
        for (const [term, weight] of await options!.termWeights!(['src', 'salt', 'zzzqx'])) weights.set(term, weight);
        return builtin.embedQuery(text, options);
      },
    };
    const searcher = await Searcher.open({ indexDir: indexer.indexDir, embedder: spy });
    try {
      await searcher.search('hash a password with a salt');
      // Every element's path holds `src`; one function mentions a salt; nothing holds the third.
      expect(weights.get('salt')).toBeGreaterThan(3 * weights.get('src')!);
      expect(weights.get('zzzqx')).toBe(1);
    } finally {
      searcher.close();
    }
    expect(readFileSync(database).equals(before)).toBe(true);
  });

  it('an index of an older built-in embedder: searches say to re-index, and the next run re-embeds it', async () => {
    const repo = (owned.repo = searchRepo());
    const indexer = new Indexer({ path: repo.root, embedder: 'builtin', llm: false });
    const first = await indexer.run();
    const database = openSqlite(join(indexer.indexDir, 'index.db'));
    database.exec("UPDATE meta SET value = 'builtin:v1:512' WHERE key = 'embedder'");
    database.close();

    const stale = await Searcher.open({ indexDir: indexer.indexDir });
    try {
      const response = await stale.search('hash a password with a salt');
      expect(response.mode).toBe('lexical');
      expect(response.fallback?.reason).toMatch(
        /cannot embed queries for builtin:v1:512: run oc-vector-index to re-embed the index/,
      );
      expect(response.results[0]!.name).toBe('hashPassword');
    } finally {
      stale.close();
    }

    const modes: string[] = [];
    const again = await new Indexer({
      path: repo.root,
      llm: false,
      onEvent: (event) => event.type === 'run-start' && modes.push(event.mode),
    }).run();
    expect(modes).toEqual(['rebuild']);
    expect(again).toMatchObject({ embedder: first.embedder, elements: { total: first.elements.total } });
    const fresh = await Searcher.open({ indexDir: indexer.indexDir });
    try {
      expect(await fresh.search('hash a password with a salt')).toMatchObject({
        mode: 'hybrid',
        embedder: first.embedder,
      });
    } finally {
      fresh.close();
    }
  });

  it('opening a directory without an index is a StoreError NOT_FOUND', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ocvector-empty-'));
    try {
      await expect(Searcher.open({ indexDir: join(empty, '.ocvector') })).rejects.toMatchObject({
        name: 'StoreError',
        code: 'NOT_FOUND',
      });
      await expect(Searcher.open({ indexDir: join(empty, '.ocvector') })).rejects.toBeInstanceOf(StoreError);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('Searcher: evidence of the whole file', () => {
  const owned = cleanedUpAfterEach();

  it("a question answered across one file's functions finds that file before a function that repeats one of its words", async () => {
    const method = (name: string, body: string) => `  ${name}(row: Row): void {\n    ${body}\n  }\n`;
    const searcher = await searcherOn(owned, {
      'src/store.ts': [
        'type Row = Record<string, unknown>;',
        'export class Store {',
        method('add', 'this.journal.push({ op: "insert", row });'),
        method('change', 'this.journal.push({ op: "update", row });'),
        method('drop', 'this.journal.push({ op: "delete", row });'),
        method('atomically', 'this.journal.push({ op: "commit", row }); // one transaction'),
        '  journal: unknown[] = [];',
        '}',
      ].join('\n'),
      'src/audit.ts': [
        'type Row = Record<string, unknown>;',
        '/** Audit log of insert events. */',
        'export function auditInsert(row: Row): string {',
        '  return "insert " + JSON.stringify(row);',
        '}',
        ...Array.from(
          { length: 6 },
          (_, i) => `export function helper${i}(n: number): number {\n  return n * ${i + 2};\n}`,
        ),
      ].join('\n'),
    });
    try {
      // Lexical: the built-in embedder's vectors favour the function named after one of the words, as they should.
      const { results } = await searcher.search('insert update delete within a transaction', { mode: 'lexical' });
      expect(results[0]?.path, results.map((r) => `${r.path}:${r.name}`).join(', ')).toBe('src/store.ts');
    } finally {
      searcher.close();
    }
  });
});

describe('Searcher: a request for a change', () => {
  const owned = cleanedUpAfterEach();

  it("weighs an element's code as much as its name: the code that does what the request names comes before a name that shares one word", async () => {
    const searcher = await searcherOn(owned, {
      'src/policy.py': [
        'class RetryPolicy:',
        '    """How many attempts, and how long between them."""',
        '',
        '    attempts = 3',
        '',
        '',
        'class UpstreamPool:',
        '    """The servers a request may go to."""',
        '',
        '    servers = []',
      ].join('\n'),
      'src/proxy.py': [
        'def forward(request, upstream, attempts=3):',
        '    """Sends the request on and returns the answer."""',
        '    for attempt in range(attempts):',
        '        try:',
        '            return upstream.send(request, deadline=request.deadline)',
        '        except ConnectionResetError:',
        '            log.warning("upstream reset the connection, retry %d of %d", attempt, attempts)',
        '            backoff(attempt)',
        '    raise GatewayError(request)',
      ].join('\n'),
    });
    try {
      const firstOfBm25 = async (query: string) => {
        const { results } = await searcher.search(query, { mode: 'lexical' });
        return results.find((result) => result.signals.lexical === 1)?.name;
      };
      // The words as a topic: the class named after one of them leads BM25, as it should.
      expect(await firstOfBm25('upstream connection reset retries')).toBe('RetryPolicy');
      expect(await firstOfBm25('retry when the upstream resets the connection')).toBe('forward');
    } finally {
      searcher.close();
    }
  });
});

describe('Searcher: a name spelled as typed', () => {
  const owned = cleanedUpAfterEach();

  it('lists the code that spells `starts_with` before the many `startsWith` that BM25 reads as the same name', async () => {
    const helper = (i: number) =>
      `export function isPrefixed${i}(line: string): boolean {\n  return line.startsWith('${'#'.repeat(i + 1)}');\n}`;
    const searcher = await searcherOn(owned, {
      'src/lines.ts': Array.from({ length: 12 }, (_, i) => helper(i)).join('\n\n'),
      'src/sql.py': [
        'def under_directory(column):',
        '    """The condition that keeps the files under a directory."""',
        '    return f"({column} = %s OR starts_with({column}, %s))"',
      ].join('\n'),
    });
    try {
      const { results } = await searcher.search('starts_with');
      expect(results[0]?.path, results.map((r) => `${r.path}:${r.name}`).join(', ')).toBe('src/sql.py');
      // The other spelling still follows: the same whole name, before anything that shares a part only.
      expect(results.filter((r) => r.path === 'src/lines.ts').length).toBeGreaterThan(0);
    } finally {
      searcher.close();
    }
  });
});
