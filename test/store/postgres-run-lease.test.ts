/**
 * A run of the shared store while another run of the same repository is under way, on PGlite
 * (one backend for every connection: a transaction open there makes every other connection
 * wait). The first run is held mid-run by its embedder (its first batch written, the second not
 * embedded yet), so that each case is checked while it runs: a second run is refused with
 * LOCKED at once, a run told to wait waits and then completes, and a search answers from the
 * last committed state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { Searcher } from '../../src/search/searcher.js';
import { StoreError } from '../../src/store/errors.js';
import type { PostgresChoice } from '../../src/store/open.js';
import { BuiltinEmbedder } from '../../src/vector/builtin-embedder.js';
import type { Embedder } from '../../src/vector/embedder.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';
import { startPostgres, type Postgres } from '../support/postgres.js';

/** A repository of `count` files, each with a function named after its number and a version word. */
function manyFiles(count: number, version: string): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `src/part${i}.ts`,
      `/** Part ${i} of the ${version} release. */\nexport function part${i}${version}(): number {\n  return ${i};\n}\n`,
    ]),
  );
}

/** The built-in embedder, held at its second call until released: a run stopped mid-way, its first batch written. */
function heldEmbedder(): { embedder: Embedder; reached: Promise<void>; release: () => void } {
  const inner = new BuiltinEmbedder();
  let calls = 0;
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const embedder: Embedder = {
    get id() {
      return inner.id;
    },
    get dimension() {
      return inner.dimension;
    },
    get calls() {
      return inner.calls;
    },
    init: () => inner.init(),
    embedQuery: (text, options) => inner.embedQuery(text, options),
    async embedDocuments(texts) {
      if (++calls === 2) {
        reach();
        await released;
      }
      return inner.embedDocuments(texts);
    },
  };
  return { embedder, reached, release };
}

let postgres: Postgres;
let repo: TempRepo;
const SCHEMA = 'leases';

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  repo?.cleanup();
  await postgres?.stop();
});

const store = (): PostgresChoice => ({ url: postgres.url, schema: SCHEMA });

function run(extra: { embedder?: Embedder; lockWaitMs?: number } = {}) {
  return new Indexer({
    path: repo.root,
    store: store(),
    repo: 'app',
    embedder: 'builtin',
    llm: false,
    threads: 1,
    ...extra,
  }).run();
}

describe('a run of a repository while another is under way', () => {
  it('is refused at once with LOCKED, waits when told to and then completes, and searches answer meanwhile', async () => {
    repo = tempRepo(manyFiles(200, 'alpha'));
    await run();
    for (const [path, text] of Object.entries(manyFiles(200, 'beta'))) repo.write(path, text);
    const held = heldEmbedder();
    const first = run({ embedder: held.embedder });
    await held.reached;

    // Not a connection that timed out: the lease says who holds the repository.
    const refused = await run().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({ code: 'LOCKED' });

    // A search answers, from the last committed state: the first batch written is not seen.
    const searcher = await Searcher.open({ store: store() });
    try {
      expect((await searcher.search('part7alpha', { mode: 'lexical' })).results[0]).toMatchObject({
        path: 'src/part7.ts',
      });
      expect((await searcher.references('part7beta')).definitions).toEqual([]);
    } finally {
      searcher.close();
    }

    const waiting = run({ lockWaitMs: 120_000 });
    let waited = false;
    void waiting.then(() => (waited = true)).catch(() => (waited = true));
    // It waits for the first run (which cannot end while its embedder is held).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(waited).toBe(false);
    held.release();
    const done = await first;
    expect(done.files.changed).toBe(200);
    const after = await waiting;
    // It ran after the first committed: nothing left to do.
    expect(after.files.changed).toBe(0);
    expect(after.files.unchanged).toBe(200);
    expect(after.generation).toBeGreaterThan(done.generation);
  }, 120_000);
});
