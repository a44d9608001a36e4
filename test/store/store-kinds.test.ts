/**
 * The registry of store kinds (src/store/locations.ts): a kind registered in this test alone, a
 * toy store named by `toy://` locations, is opened by its location through openStore, and the
 * indexing run asks it only its capabilities: a toy that cannot seed is never seeded, one that
 * can is asked to; a dry run previews the store it is given, or hears its refusal.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Indexer } from '../../src/indexing/indexer.js';
import { StoreError } from '../../src/store/errors.js';
import { registerStoreKind } from '../../src/store/locations.js';
import { openStore, type StoreChoice } from '../../src/store/open.js';
import type { SearchStore } from '../../src/store/reads.js';
import type { Repository } from '../../src/store/rows.js';
import type {
  DroppedIndex,
  DroppedRepository,
  IndexPreview,
  SeedResult,
  Store,
  StoreCapabilities,
  StoreContents,
  StoreKind,
  StoreRun,
} from '../../src/store/store.js';
import { eventLog, SAMPLE_FILES, tempRepo } from '../helpers/repo.js';

/** What a toy run answers at its start: the test ends the run there, having seen what came before. */
class ToyRunRefused extends Error {}

/** A store that records what it is asked and holds nothing. */
class ToyStore implements Store {
  readonly asked: string[] = [];

  constructor(
    readonly location: string,
    readonly capabilities: StoreCapabilities,
  ) {}

  exists(): boolean {
    return false;
  }
  startsCold(): boolean {
    this.asked.push('startsCold');
    return false;
  }
  openSearch(): Promise<SearchStore> {
    return this.#refuse('openSearch');
  }
  beginRun(): Promise<StoreRun> {
    this.asked.push('beginRun');
    return Promise.reject(new ToyRunRefused('a toy store runs nothing'));
  }
  contents(): Promise<StoreContents> {
    return this.#refuse('contents');
  }
  repositories(): Promise<Repository[]> {
    return this.#refuse('repositories');
  }
  dropRepository(): Promise<DroppedRepository> {
    return this.#refuse('dropRepository');
  }
  drop(): Promise<DroppedIndex> {
    return this.#refuse('drop');
  }
  preview(): IndexPreview | undefined {
    this.asked.push('preview');
    if (!this.capabilities.preview) throw new StoreError('a toy store cannot be previewed', 'BAD_OPTION');
    return undefined;
  }
  seedFrom(source: string): Promise<SeedResult> {
    this.asked.push(`seedFrom ${source}`);
    return Promise.resolve({ copied: false, why: 'a toy store copies nothing' });
  }
  #refuse<T>(what: string): Promise<T> {
    this.asked.push(what);
    return Promise.reject(new Error(`a toy store has no ${what}`));
  }
}

const NOTHING: StoreCapabilities = { seedFromCopy: false, preview: false, drop: false };

/** A toy kind of store, registered until the test ends, and the stores it opened. */
function registerToy(capabilities: StoreCapabilities = NOTHING): { kind: StoreKind; opened: ToyStore[] } {
  const opened: ToyStore[] = [];
  const kind: StoreKind = {
    name: 'toy store',
    namedBy: 'a toy URL (toy://name)',
    claims: (choice: StoreChoice) => typeof choice === 'string' && choice.startsWith('toy://'),
    async open(choice) {
      const store = new ToyStore(String(choice), capabilities);
      opened.push(store);
      return store;
    },
  };
  cleanups.push(registerStoreKind(kind));
  return { kind, opened };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A git repository whose main worktree has an index directory, and a linked worktree of it with none. */
function worktreeOfIndexedRepository(): { main: string; worktree: string } {
  const main = tempRepo(SAMPLE_FILES, { git: true });
  const parent = mkdtempSync(join(tmpdir(), 'ocvector-toy-'));
  cleanups.push(() => {
    main.cleanup();
    rmSync(parent, { recursive: true, force: true });
  });
  mkdirSync(join(main.root, '.ocvector'));
  const worktree = join(parent, 'feature');
  main.git('worktree', 'add', '-q', '-b', 'feature', worktree);
  return { main: main.root, worktree };
}

/** An indexing run of `path` into the toy store; it ends at the store's refusal to begin. */
async function indexIntoToy(path: string) {
  const log = eventLog();
  const indexer = new Indexer({ path, store: 'toy://shelf', embedder: 'builtin', llm: false, onEvent: log.onEvent });
  await expect(indexer.run()).rejects.toBeInstanceOf(ToyRunRefused);
  return log.events.filter((event) => event.type === 'index-copied' || event.type === 'index-not-copied');
}

describe('a kind of store registered in a test', () => {
  it('is opened by its location through openStore, and refused once it is gone', async () => {
    const { kind, opened } = registerToy();
    const store = await openStore('toy://shelf');
    expect(store).toBe(opened[0]);
    expect(store.location).toBe('toy://shelf');
    // The refusal names what names a store, the toy's location among them.
    await expect(openStore('nowhere://shelf')).rejects.toThrow(
      'a store is a PostgreSQL URL (postgres://user@host:5432/db) or a toy URL (toy://name), not "nowhere://shelf"; leave it out for the embedded index',
    );
    expect(() => registerStoreKind({ ...kind })).toThrow(/a kind of store named "toy store" is registered already/);

    cleanups.pop()!();
    const refused = await openStore('toy://shelf').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({
      code: 'BAD_OPTION',
      message:
        'a store is a PostgreSQL URL (postgres://user@host:5432/db), not "toy://shelf"; leave it out for the embedded index',
    });
  });

  it('is never seeded when it cannot start from a copy, and asked only its capabilities', async () => {
    const { opened } = registerToy();
    const { worktree } = worktreeOfIndexedRepository();

    expect(await indexIntoToy(worktree)).toEqual([]);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.asked).toEqual(['startsCold', 'beginRun']);
  });

  it("is asked to start from the main worktree's index when it can", async () => {
    const { opened } = registerToy({ ...NOTHING, seedFromCopy: true });
    const { main, worktree } = worktreeOfIndexedRepository();

    expect(await indexIntoToy(worktree)).toEqual([
      { type: 'index-not-copied', from: join(main, '.ocvector'), why: 'a toy store copies nothing' },
    ]);
    expect(opened[0]!.asked).toEqual(['startsCold', `seedFrom ${join(main, '.ocvector')}`, 'beginRun']);
  });

  it('is what a dry run previews, or the store that refuses it', async () => {
    const { worktree } = worktreeOfIndexedRepository();
    // One file: analysed on this thread, with no worker to start.
    const dryRun = () =>
      new Indexer({ path: worktree, store: 'toy://shelf', embedder: 'builtin', llm: false }).dryRun({
        paths: [join(worktree, 'src/users.ts')],
      });

    const refusing = registerToy();
    await expect(dryRun()).rejects.toThrow('a toy store cannot be previewed');
    expect(refusing.opened[0]!.asked).toEqual(['preview']);
    cleanups.pop()!();

    const previewing = registerToy({ ...NOTHING, preview: true });
    // A store with nothing to show: the file is to be indexed.
    const report = await dryRun();
    expect(report.files.toIndex).toBe(1);
    expect(previewing.opened[0]!.asked).toEqual(['preview']);
  });
});

describe('the two kinds of store', () => {
  it('say what they can do, and the shared store refuses a dry run as it always did', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ocvector-kinds-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const embedded = await openStore(undefined, { indexDir: join(root, '.ocvector') });
    expect(embedded.capabilities).toEqual({ seedFromCopy: true, preview: true, drop: true });
    expect(embedded.startsCold()).toBe(true);
    // A handle: nothing is connected to until asked.
    const shared = await openStore({ url: 'postgres://someone@localhost:1/nothing', schema: 'kinds' });
    expect(shared.capabilities).toEqual({ seedFromCopy: false, preview: false, drop: false });
    expect(shared.startsCold()).toBe(false);
    await expect(shared.seedFrom(root)).rejects.toMatchObject({ code: 'BAD_OPTION' });

    const indexer = new Indexer({ path: root, store: 'postgres://someone@localhost:1/nothing', embedder: 'builtin' });
    await expect(indexer.dryRun()).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message:
        'a dry run reads the embedded index only: leave --store out to estimate a run (its figures hold for the shared store too)',
    });
    expect(() => new Indexer({ path: root, store: 'mysql://someone@localhost/nothing' })).toThrow(
      'a store is a PostgreSQL URL (postgres://user@host:5432/db), not "mysql://someone@localhost/nothing"; leave it out for the embedded index',
    );
  });
});
