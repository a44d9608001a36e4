/**
 * The shared PostgreSQL store as a SearchStore (../reads.ts): each search reads on a client of
 * its own, in one REPEATABLE READ, READ ONLY transaction, so that every read it makes sees the
 * same commit while writers go on (a run commits a repository whole: a search sees it as it was,
 * or as it is after the run, never half-written). Searches run at once, up to the pool's size.
 * The k-NN runs in pgvector (vector-reader.ts), BM25 as FTS5 scores it (lexical-reader.ts),
 * and a file's text comes from the store when the repository is not checked out here.
 */
import { inflateRawSync } from 'node:zlib';
import type { EmbedderRecord } from '../rows.js';
import type { SearchStore, Snapshot, VectorReads, VectorScope } from '../reads.js';
import type { Repository } from '../rows.js';
import { PostgresConnection, DEFAULT_POSTGRES_SCHEMA, type PostgresConnectionOptions } from './connection.js';
import { PostgresOccurrences } from './occurrence-reads.js';
import { PostgresScopeReads } from './scope-reads.js';
import { readState } from './run-state.js';
import { type Queryable, serialQueries } from './serial.js';
import { DEFAULT_EF_SEARCH, MAX_K, VectorReader } from './vector-reader.js';
import { findVectorSpace, type VectorSpace } from './vector-space.js';

/** HNSW's candidate list at most (pgvector's limit for hnsw.ef_search). */
const MAX_EF_SEARCH = 1_000;

export interface PostgresStoreChoice {
  url: string;
  schema?: string | undefined;
  maxConnections?: number | undefined;
}

export class PostgresSearchStore implements SearchStore {
  readonly kind = 'postgres';
  readonly #connection: PostgresConnection;
  /** What holds until a writer commits: the repositories and how many elements they hold. */
  #atGeneration: { generation: number; list: Repository[]; elements: Promise<number> | undefined } = {
    generation: Number.NaN,
    list: [],
    elements: undefined,
  };
  /** What holds for the store's life: whether pgvector has iterative scans, and each embedder's vector space. */
  #iterativeScans: Promise<boolean> | undefined;
  readonly #spaces = new Map<string, VectorSpace>();

  private constructor(connection: PostgresConnection) {
    this.#connection = connection;
  }

  /** Connects and checks the store (StoreError NOT_FOUND when nothing was indexed there yet, UNREACHABLE, ...). */
  static async open(choice: PostgresStoreChoice): Promise<PostgresSearchStore> {
    const options: PostgresConnectionOptions & { migrate: false } = {
      schema: choice.schema ?? DEFAULT_POSTGRES_SCHEMA,
      maxConnections: choice.maxConnections,
      migrate: false,
    };
    return new PostgresSearchStore(await PostgresConnection.open(choice.url, options));
  }

  get location(): string {
    return this.#connection.location;
  }

  read<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    return this.#connection.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (connection) => {
      // The search's parts ask at once; its one connection answers them in turn.
      const client = serialQueries(connection);
      try {
        return await work(await this.#snapshot(client));
      } finally {
        // A part still asking when another failed ends before the transaction does, not on the next search's.
        await client.settled();
      }
    });
  }

  async close(): Promise<void> {
    await this.#connection.close();
  }

  async #snapshot(client: Queryable): Promise<Snapshot> {
    const { s, schema } = this.#connection;
    const { generation, embedder } = await readState(client, s);
    const repositories = await this.#repositoriesAt(client, generation);
    const all = repositories.map((repository) => repository.id);
    const at = this.#atGeneration;
    const elements = () =>
      (at.elements ??= new PostgresScopeReads(client, schema, s, all).elementCount().catch((error: unknown) => {
        at.elements = undefined;
        throw error;
      }));
    if (embedder && !this.#spaces.has(embedder.id)) {
      const space = await findVectorSpace(client, schema, embedder.id);
      if (space) this.#spaces.set(embedder.id, space);
    }
    const space = embedder ? this.#spaces.get(embedder.id) : undefined;
    const vectors = embedder
      ? new VectorReader(client, schema, {
          iterativeScans: this.#scans(client),
          // The search's transaction is its own: its settings end with it.
          ownTransaction: true,
          ...(space ? { space } : {}),
        })
      : undefined;
    return {
      generation,
      embedder,
      repositories,
      reads: (roots) => new PostgresScopeReads(client, schema, s, roots),
      vectors:
        vectors && embedder ? vectorReads(vectors, embedder, await elements()) : { problem: 'nothing indexed yet' },
      occurrences: new PostgresOccurrences(client, s, all),
      storedText: async (fileIds) => {
        const { rows } = await client.query<{ id: number; content: Buffer | null }>(
          `SELECT id, content FROM ${s}.files WHERE repo_id = ANY($1::integer[]) AND id = ANY($2::bigint[])`,
          [all, [...fileIds]],
        );
        const texts = new Map<number, Buffer>();
        for (const row of rows) if (row.content) texts.set(row.id, inflateRawSync(row.content));
        return texts;
      },
    };
  }

  /** Whether pgvector has iterative scans: asked once (again after a failure). */
  #scans(client: Queryable): Promise<boolean> {
    if (!this.#iterativeScans) {
      const asked = VectorReader.iterativeScans(client).catch((error: unknown) => {
        this.#iterativeScans = undefined;
        throw error;
      });
      // Asked with every snapshot, awaited only by a k-NN: a lexical search's snapshot may drop its failure.
      asked.catch(() => {});
      this.#iterativeScans = asked;
    }
    return this.#iterativeScans;
  }

  async #repositoriesAt(client: Queryable, generation: number): Promise<Repository[]> {
    if (this.#atGeneration.generation === generation) return this.#atGeneration.list;
    const { rows } = await client.query<Repository>(
      `SELECT id, name, root, git_commit AS "commit", indexed_at AS "indexedAt" FROM ${this.#connection.s}.repositories ORDER BY id`,
    );
    this.#atGeneration = { generation, list: rows, elements: undefined };
    return rows;
  }
}

/** pgvector's k-NN over the scope's repositories (every element of the store has its vector). */
function vectorReads(reader: VectorReader, embedder: EmbedderRecord, count: number): VectorReads {
  return {
    count,
    async nearest(query: Float32Array, depth: number, scope: VectorScope) {
      const k = Math.min(depth, MAX_K);
      if (k === 0 || scope.roots.length === 0) return [];
      // HNSW returns at most ef_search candidates per scan: enough for the depth asked.
      const efSearch = Math.min(MAX_EF_SEARCH, Math.max(DEFAULT_EF_SEARCH, k));
      return reader.nearest({ embedder: embedder.id, vector: query, k, repoIds: scope.roots, efSearch });
    },
  };
}
