/**
 * The shared PostgreSQL store as a Store (../store.ts): a schema of a PostgreSQL database with
 * pgvector, for many repositories, writers and readers. Each call opens its own connection and
 * closes it again; searches read through search-store.ts, runs write through store-run.ts, and
 * status and drops are admin.ts's.
 */
import type { SearchStore } from '../reads.js';
import type { Repository } from '../rows.js';
import { StoreError } from '../errors.js';
import type {
  DroppedIndex,
  DroppedRepository,
  IndexPreview,
  WriterClaim,
  SeedResult,
  Store,
  StoreCapabilities,
  StoreContents,
  StoreRun,
} from '../store.js';
import { dropPostgresRepository, type PostgresLocation, postgresContents, postgresRepositories } from './admin.js';
import { withoutPassword } from '../location.js';
import { DEFAULT_POSTGRES_SCHEMA } from './schema.js';
import { PostgresSearchStore } from './search-store.js';
import { PostgresStoreRun, VECTOR_INDEX_DESCRIPTION } from './store-run.js';

export class PostgresStore implements Store {
  readonly #choice: PostgresLocation;
  readonly location: string;
  /**
   * A schema of the user's own database: deleted there, not by ocvector; a dry run's figures
   * from the embedded index hold for it too; and a repository's first run fills it afresh.
   */
  readonly capabilities: StoreCapabilities = { seedFromCopy: false, preview: false, drop: false };

  constructor(choice: PostgresLocation) {
    this.#choice = choice;
    this.location = `${withoutPassword(choice.url)} (schema ${choice.schema ?? DEFAULT_POSTGRES_SCHEMA})`;
  }

  /** The server answers for itself: a store not made yet is reported by the call that needs it. */
  exists(): boolean {
    return true;
  }

  /** Whether it holds the run's repository is the server's to say, at the run. */
  startsCold(): boolean {
    return false;
  }

  openSearch(): Promise<SearchStore> {
    return PostgresSearchStore.open(this.#choice);
  }

  beginRun(start: WriterClaim): Promise<StoreRun> {
    return PostgresStoreRun.begin(this.#choice, start);
  }

  async contents(): Promise<StoreContents> {
    const contents = await postgresContents(this.#choice);
    const newest = contents.repositories
      .filter((repository) => repository.lastRun)
      .sort((a, b) => (b.indexedAt ?? 0) - (a.indexedAt ?? 0))[0];
    return {
      ...contents,
      shared: true,
      lastRun: newest?.lastRun ?? null,
      vectorIndex: { description: VECTOR_INDEX_DESCRIPTION, file: null, fileGeneration: null },
    };
  }

  repositories(): Promise<Repository[]> {
    return postgresRepositories(this.#choice);
  }

  dropRepository(name: string, options: { waitMs?: number } = {}): Promise<DroppedRepository> {
    return dropPostgresRepository(this.#choice, name, options);
  }

  drop(): Promise<DroppedIndex> {
    return Promise.reject(
      new StoreError(
        'a shared store is a schema of your own database: drop that there, or one repository with dropRepository',
        'BAD_OPTION',
      ),
    );
  }

  preview(): IndexPreview | undefined {
    throw new StoreError(
      'a dry run reads the embedded index only: leave --store out to estimate a run (its figures hold for the shared store too)',
      'BAD_OPTION',
    );
  }

  seedFrom(): Promise<SeedResult> {
    return Promise.reject(new StoreError('a shared store starts a repository afresh, never as a copy', 'BAD_OPTION'));
  }
}
