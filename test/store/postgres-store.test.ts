/**
 * The shared PostgreSQL store, where it differs from the embedded one (the contract test holds
 * what they share): a run is one transaction, so a run that fails, is aborted or is killed
 * leaves its repository as it was; two runs of one repository take turns; a search from a
 * machine without the checkout shows the text the store kept; a server that goes away gives a
 * clear error, and searches work again once it is back; a server that cannot hold the store,
 * a store that is not there, and bad names are refused, saying why.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { storeStatus } from '../../src/indexing/status.js';
import { Searcher } from '../../src/search/searcher.js';
import { StoreError } from '../../src/store/errors.js';
import { openStore, type PostgresChoice } from '../../src/store/open.js';
import { LEASE_EXPIRY_MS } from '../../src/store/postgres/run-lease.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

const CHILD = new URL('../helpers/index-child.mjs', import.meta.url).pathname;

/** A repository of `count` files, each with a function named after its number and a version word. */
function manyFiles(count: number, version: string): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `src/part${i}.ts`,
      `/** Part ${i} of the ${version} release. */\nexport function part${i}${version}(): number {\n  return ${i};\n}\n`,
    ]),
  );
}

let postgres: Postgres;
const owned: TempRepo[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  for (const repo of owned) repo.cleanup();
  await postgres?.stop();
});

function store(schema: string): PostgresChoice {
  return { url: postgres.url, schema };
}

function run(
  path: string,
  schema: string,
  repo: string,
  extra: { signal?: AbortSignal; onEvent?: (e: { type: string; done?: number }) => void; lockWaitMs?: number } = {},
) {
  return new Indexer({ path, store: store(schema), repo, embedder: 'builtin', llm: false, threads: 1, ...extra }).run();
}

async function search(schema: string, query: string, options: Parameters<Searcher['search']>[1] = {}) {
  const searcher = await Searcher.open({ store: store(schema) });
  try {
    return await searcher.search(query, options);
  } finally {
    searcher.close();
  }
}

/** Whether the store holds a definition of the symbol. */
async function defines(schema: string, symbol: string): Promise<boolean> {
  const searcher = await Searcher.open({ store: store(schema) });
  try {
    return (await searcher.references(symbol)).definitions.length > 0;
  } finally {
    searcher.close();
  }
}

describe('a run into the shared store', () => {
  it('leaves the repository as it was when aborted mid-run, though batches were written', async () => {
    const repo = tempRepo(manyFiles(150, 'alpha'));
    owned.push(repo);
    const first = await run(repo.root, 'aborted', 'app');
    expect(first.files.added).toBe(150);
    for (const [path, text] of Object.entries(manyFiles(150, 'beta'))) repo.write(path, text);
    const controller = new AbortController();
    let written = 0;
    const aborted = run(repo.root, 'aborted', 'app', {
      signal: controller.signal,
      onEvent: (event) => {
        // Two batches of 64 files are written by the time 130 are done.
        if (event.type === 'progress' && (event.done ?? 0) >= 130) controller.abort(new Error('stop'));
        if (event.type === 'file-indexed') written++;
      },
    });
    await expect(aborted).rejects.toThrow('stop');
    expect(written).toBeGreaterThanOrEqual(64);
    const status = await storeStatus(await openStore(store('aborted')), { checkFiles: false });
    expect(status.repositories).toMatchObject([{ name: 'app', files: 150, elements: first.elements.total }]);
    expect(await defines('aborted', 'part7beta')).toBe(false);
    expect((await search('aborted', 'part7alpha')).results[0]).toMatchObject({ path: 'src/part7.ts' });
    // The next run does the work in full.
    const again = await run(repo.root, 'aborted', 'app');
    expect(again.files.changed).toBe(150);
    expect(await defines('aborted', 'part7beta')).toBe(true);
  });

  it('leaves the repository as it was when the indexing process is killed, and the next run takes its place', async () => {
    const repo = tempRepo(manyFiles(150, 'gamma'));
    owned.push(repo);
    await run(repo.root, 'killed', 'app');
    const before = await storeStatus(await openStore(store('killed')), { checkFiles: false });
    for (const [path, text] of Object.entries(manyFiles(150, 'delta'))) repo.write(path, text);
    const ended = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [CHILD, repo.root, postgres.url, 'app', 'killed'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      let killed = false;
      createInterface({ input: child.stdout }).on('line', (line) => {
        const event = JSON.parse(line) as { type: string; done?: number };
        if (!killed && event.type === 'progress' && (event.done ?? 0) >= 130) {
          killed = true;
          child.kill('SIGKILL');
        }
      });
      child.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve('killed') : code === 0 ? resolve('finished') : reject(new Error(stderr)),
      );
    });
    expect(ended).toBe('killed');
    const after = await storeStatus(await openStore(store('killed')), { checkFiles: false });
    expect(after.repositories).toEqual(before.repositories);
    expect(after.generation).toBe(before.generation);
    expect(await defines('killed', 'part9delta')).toBe(false);
    // Its lease is freed: at once on a PostgreSQL server (its connection is gone), on PGlite (one
    // backend for every connection) once it has not been renewed for LEASE_EXPIRY_MS.
    const next = await run(repo.root, 'killed', 'app', { lockWaitMs: 4 * LEASE_EXPIRY_MS });
    expect(next.files.changed).toBe(150);
    expect(await defines('killed', 'part9delta')).toBe(true);
  });

  it('runs of one repository told to wait take turns, and end in the state one run would leave', async () => {
    const repo = tempRepo(manyFiles(40, 'one'));
    owned.push(repo);
    const [a, b] = await Promise.all([
      run(repo.root, 'turns', 'app', { lockWaitMs: 60_000 }),
      run(repo.root, 'turns', 'app', { lockWaitMs: 60_000 }),
    ]);
    // One indexed the files; the other, after it, found them unchanged (or both saw them new, one after the other).
    expect(a.files.added + b.files.added).toBeGreaterThanOrEqual(40);
    const status = await storeStatus(await openStore(store('turns')), { checkFiles: false });
    expect(status.repositories).toMatchObject([{ name: 'app', files: 40 }]);
    expect(status.elements).toBe(a.elements.total);
  });
});

describe("the vectors' HNSW indexes", () => {
  it("are built per repository, each at the commit of the repository's first run, and answer searches of each and of both", async () => {
    const first = tempRepo(manyFiles(30, 'alpha'));
    const second = tempRepo(manyFiles(30, 'beta'));
    owned.push(first, second);
    await run(first.root, 'hnsw_later', 'first');
    await run(second.root, 'hnsw_later', 'second');
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ tablename: string; indexname: string }>(
        `SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'hnsw_later' AND indexdef LIKE '%USING hnsw%'
         ORDER BY tablename`,
      );
      // Space 1's partitions of repositories 1 and 2 (first, then second).
      expect(rows).toEqual([
        { tablename: 'element_vectors_1_1', indexname: 'element_vectors_1_1_hnsw' },
        { tablename: 'element_vectors_1_2', indexname: 'element_vectors_1_2_hnsw' },
      ]);
    } finally {
      await client.end();
    }
    for (const [word, path] of [
      ['part7alpha', 'src/part7.ts'],
      ['part12beta', 'src/part12.ts'],
    ] as const) {
      const { results } = await search('hnsw_later', `release part ${word}`, { mode: 'vector' });
      expect(results.map((r) => `${r.repo}:${r.path}`)).toContain(
        `${word.endsWith('alpha') ? 'first' : 'second'}:${path}`,
      );
    }
  });
});

describe('words and terms longer than a B-tree key holds', () => {
  it('are indexed and found, as in the embedded store', async () => {
    // Past PostgreSQL's 2,704-byte B-tree key, in a file that is not minified (one long line of many).
    const long = `x${'y'.repeat(3_000)}`;
    const filler = Array.from({ length: 40 }, (_, i) => `export const filler${i} = ${i};`).join('\n');
    const repo = tempRepo({
      'src/min.js': `export const ${long} = 1;\nexport function useIt() {\n  return ${long};\n}\n${filler}\n`,
    });
    owned.push(repo);
    await run(repo.root, 'long_words', 'app');
    await new Indexer({ path: repo.root, repo: 'app', embedder: 'builtin', llm: false }).run();
    const shared = await Searcher.open({ store: store('long_words') });
    const embedded = await Searcher.open({ indexDir: join(repo.root, '.ocvector') });
    try {
      const there = await shared.references(long);
      expect(there.total).toBe(2);
      expect(there.files[0]!.sites.map((site) => site.line)).toEqual([1, 3]);
      const strip = (r: typeof there) => ({ definitions: r.definitions, files: r.files, total: r.total });
      expect(strip(there)).toEqual(strip(await embedded.references(long)));
      expect((await shared.search('useIt', { mode: 'lexical' })).results[0]).toMatchObject({ path: 'src/min.js' });
    } finally {
      shared.close();
      embedded.close();
    }
  });
});

describe('a search from a machine without the checkout', () => {
  it('shows the text the store kept, and reads from disk when the checkout is there', async () => {
    const repo = tempRepo({
      'src/vault.ts':
        '/** Opens the vault with a combination. */\nexport function openVault(combination: string): boolean {\n  return combination.length === 4;\n}\n',
    });
    await run(repo.root, 'stored', 'vault');
    const here = await search('stored', 'openVault');
    expect(here.results[0]).toMatchObject({ path: 'src/vault.ts', stale: false });
    expect(here.results[0]!.snippet).toContain('combination.length === 4');
    repo.write('src/vault.ts', '// changed since\n');
    expect((await search('stored', 'openVault')).results[0]).toMatchObject({ stale: true });
    repo.cleanup();
    const elsewhere = await search('stored', 'openVault');
    expect(elsewhere.results[0]).toMatchObject({ repo: 'vault', path: 'src/vault.ts', stale: false });
    expect(elsewhere.results[0]!.snippet).toContain('combination.length === 4');
    const searcher = await Searcher.open({ store: store('stored') });
    try {
      const refs = await searcher.references('combination');
      expect(refs.files[0]!.sites.map((site) => site.text)).toContain('  return combination.length === 4;');
    } finally {
      searcher.close();
    }
  });
});

describe('the server and the store, refused or gone', () => {
  it('says the server is unreachable while it is down, and searches again once it is back', async () => {
    const repo = tempRepo({ 'src/a.ts': 'export function reachableAgain(): number {\n  return 1;\n}\n' });
    owned.push(repo);
    await run(repo.root, 'outage', 'app');
    const searcher = await Searcher.open({ store: store('outage') });
    try {
      expect((await searcher.search('reachableAgain')).results.length).toBeGreaterThan(0);
      const restore = await postgres.outage();
      const error = await searcher.search('reachableAgain').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ code: 'UNREACHABLE' });
      expect((error as Error).message).toContain('cannot reach the PostgreSQL store at postgres://postgres@127.0.0.1');
      await restore();
      expect((await searcher.search('reachableAgain')).results[0]).toMatchObject({ path: 'src/a.ts' });
    } finally {
      searcher.close();
    }
  });

  it('refuses a store that is not there, a closed port, a bad schema name and a server without pgvector', async () => {
    await expect(Searcher.open({ store: store('never_indexed') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const closed = await Searcher.open({ store: 'postgres://someone:secret@127.0.0.1:1/db' }).catch((e: unknown) => e);
    expect(closed).toMatchObject({ code: 'UNREACHABLE' });
    expect((closed as Error).message).not.toContain('secret');
    await expect(Searcher.open({ store: 'mysql://127.0.0.1/db' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(
      Searcher.open({ store: { url: postgres.url, schema: 'x"; DROP SCHEMA public; --' } }),
    ).rejects.toMatchObject({
      code: 'BAD_NAME',
    });
    const repo = tempRepo({ 'a.ts': 'export const a = 1;\n' });
    owned.push(repo);
    await expect(run(repo.root, 'names', "web'; DROP TABLE files; --")).rejects.toMatchObject({ code: 'BAD_NAME' });
    const plain = await startPostgres({ vector: false });
    try {
      const refused = await new Indexer({ path: repo.root, store: plain.url, embedder: 'builtin', llm: false })
        .run()
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'UNSUPPORTED' });
      expect((refused as Error).message).toContain('pgvector');
    } finally {
      await plain.stop();
    }
  });
});
