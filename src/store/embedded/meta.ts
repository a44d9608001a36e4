/**
 * The index's metadata (the `meta` table), one typed property per key: the
 * keys, their types and their defaults are written down here and nowhere
 * else. Values are stored as text.
 */
import type Database from 'better-sqlite3';
import { prepared } from './sqlite.js';
import type { EmbedderRecord, LastRun } from '../rows.js';

/** The FAISS index type of an index that has not written one yet. */
export const DEFAULT_INDEX_DESCRIPTION = 'Flat';

type MetaKey =
  | 'generation'
  | 'embedder'
  | 'dimension'
  | 'embedder_host'
  | 'rebuilt_at_generation'
  | 'index_description'
  | 'last_run'
  | 'vectors_file'
  | 'home';

export class IndexMeta {
  readonly #get: Database.Statement<[MetaKey], { value: string }>;
  readonly #set: Database.Statement<[MetaKey, string]>;

  constructor(db: Database.Database) {
    this.#get = prepared<[MetaKey], { value: string }>(db, 'SELECT value FROM meta WHERE key = ?');
    this.#set = prepared<[MetaKey, string]>(
      db,
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  /** Bumped once per run that changes something; stamps rows and the FAISS file. */
  get generation(): number {
    return Number(this.#read('generation') ?? 0);
  }

  set generation(value: number) {
    this.#write('generation', value);
  }

  /** The embedder the vectors were made with; undefined for a new index. */
  get embedder(): EmbedderRecord | undefined {
    const id = this.#read('embedder');
    return id === undefined ? undefined : { id, dimension: Number(this.#read('dimension')) };
  }

  set embedder(record: EmbedderRecord) {
    this.#write('embedder', record.id);
    this.#write('dimension', record.dimension);
  }

  /**
   * Where the embedder's server was when the index was last updated (an
   * Ollama URL); undefined for an embedder without one. A search given no
   * host of its own asks this one.
   */
  get embedderHost(): string | undefined {
    return this.#read('embedder_host') || undefined;
  }

  set embedderHost(value: string | undefined) {
    this.#write('embedder_host', value ?? '');
  }

  /** The generation of the last reset (-1: never): FAISS files older than it describe nothing. */
  get rebuiltAtGeneration(): number {
    return Number(this.#read('rebuilt_at_generation') ?? -1);
  }

  set rebuiltAtGeneration(value: number) {
    this.#write('rebuilt_at_generation', value);
  }

  /** The FAISS index type of the last file written. */
  get indexDescription(): string {
    return this.#read('index_description') ?? DEFAULT_INDEX_DESCRIPTION;
  }

  set indexDescription(value: string) {
    this.#write('index_description', value);
  }

  /**
   * The FAISS file this database wrote, as `<name> <header hex>`: only that
   * file is read, so that a file left by another database is never taken
   * for this one's. Empty before the first file.
   */
  get vectorsFile(): string {
    return this.#read('vectors_file') ?? '';
  }

  set vectorsFile(value: string) {
    this.#write('vectors_file', value);
  }

  /**
   * The directory whose `.ocvector` held the index when a run last wrote it: where it
   * sits elsewhere now, it was moved or copied there (relocation.ts). Undefined for an
   * index no run has written since this was recorded, or one kept elsewhere (--db).
   */
  get home(): string | undefined {
    return this.#read('home');
  }

  set home(value: string) {
    this.#write('home', value);
  }

  /** For `--status`: when the index was last brought up to date, and with which models. */
  get lastRun(): LastRun | null {
    const value = this.#read('last_run');
    return value === undefined ? null : (JSON.parse(value) as LastRun);
  }

  set lastRun(value: LastRun) {
    this.#write('last_run', JSON.stringify(value));
  }

  #read(key: MetaKey): string | undefined {
    return this.#get.get(key)?.value;
  }

  #write(key: MetaKey, value: string | number): void {
    this.#set.run(key, String(value));
  }
}
