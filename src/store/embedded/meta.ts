/**
 * The index's metadata (the `meta` table), one typed property per key: the
 * keys, their types and their defaults are written down here and nowhere
 * else. Values are stored as text, and read as data that may have come with a
 * clone (docs/security.md): a value of a form ocvector never writes is the
 * sign of a damaged or crafted index, refused rather than used or shown.
 */
import type Database from 'better-sqlite3';
import { StoreError } from '../errors.js';
import { prepared } from './sqlite.js';
import type { EmbedderRecord, LastRun } from '../rows.js';

/** An embedder id as the backends write one (`builtin:v2:512`, `ollama:nomic-embed-text:latest`, `openai:bge-m3`). */
const EMBEDDER_ID = /^[a-z][a-z0-9-]*:[\w.:/@+-]{1,200}$/i;

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
    return this.#count('generation', 0);
  }

  set generation(value: number) {
    this.#write('generation', value);
  }

  /** The embedder the vectors were made with; undefined for a new index. */
  get embedder(): EmbedderRecord | undefined {
    const id = this.#read('embedder');
    if (id === undefined) return undefined;
    // The id reaches messages, a terminal and an agent: only the form a backend writes is believed.
    if (!EMBEDDER_ID.test(id)) throw damagedMeta('embedder');
    return { id, dimension: this.#count('dimension', 0) };
  }

  set embedder(record: EmbedderRecord) {
    this.#write('embedder', record.id);
    this.#write('dimension', record.dimension);
  }

  /**
   * Where the embedder's server was when the index was last updated (an
   * Ollama URL); undefined for an embedder without one. Shown by a status,
   * never contacted: the server a search or run asks is the user's to name.
   */
  get embedderHost(): string | undefined {
    return this.#read('embedder_host') || undefined;
  }

  set embedderHost(value: string | undefined) {
    this.#write('embedder_host', value ?? '');
  }

  /** The generation of the last reset (-1: never): FAISS files older than it describe nothing. */
  get rebuiltAtGeneration(): number {
    const value = this.#read('rebuilt_at_generation');
    return value === '-1' ? -1 : this.#count('rebuilt_at_generation', -1);
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
    if (value === undefined) return null;
    try {
      const run = JSON.parse(value) as LastRun;
      return typeof run === 'object' && run !== null && typeof run.finishedAt === 'string' ? run : null;
    } catch {
      return null; // a status shows no last run rather than failing on a damaged record
    }
  }

  set lastRun(value: LastRun) {
    this.#write('last_run', JSON.stringify(value));
  }

  /** A whole number ocvector wrote (0 or more); `fallback` when absent. */
  #count(key: MetaKey, fallback: number): number {
    const value = this.#read(key);
    if (value === undefined) return fallback;
    if (!/^\d{1,15}$/.test(value)) throw damagedMeta(key);
    return Number(value);
  }

  #read(key: MetaKey): string | undefined {
    return this.#get.get(key)?.value;
  }

  #write(key: MetaKey, value: string | number): void {
    this.#set.run(key, String(value));
  }
}

function damagedMeta(key: MetaKey): StoreError {
  return new StoreError(
    `the index's metadata is damaged (its ${key} is not a value ocvector writes): delete the index directory and index again`,
    'CORRUPT',
  );
}
