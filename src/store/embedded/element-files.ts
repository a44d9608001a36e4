/**
 * Which file each element belongs to, read once per index generation (the
 * reader keeps it while the generation lasts). The
 * whole-file evidence counts, for each query term, the elements of every
 * file that hold it: asked of SQLite, that is a table lookup per match
 * (three quarters of the counting's time at 100,000 elements); with this
 * map it is a scan of FTS5's matches and an array read each.
 */
import type Database from 'better-sqlite3';
import { prepared } from './sqlite.js';

/** Past this many ids per element the id space is too sparse for an array indexed by id. */
const MAX_IDS_PER_ELEMENT = 8;
/** Small indexes get an array whatever their ids. */
const SPARSE_ALLOWANCE = 1 << 16;

export class ElementFiles {
  /** vector id -> file id (0: no element). */
  readonly #fileOf: Int32Array;
  /** file id -> its number of elements. */
  readonly #sizes: ReadonlyMap<number, number>;
  /** Marks of the ids already counted for the current term: one array for every count, not a set per term. */
  readonly #seen: Int32Array;
  #mark = 0;

  private constructor(fileOf: Int32Array, sizes: ReadonlyMap<number, number>) {
    this.#fileOf = fileOf;
    this.#sizes = sizes;
    this.#seen = new Int32Array(fileOf.length);
  }

  /**
   * Reads the map (one row per file, its element ids joined: a row per
   * element costs twice as long to read), or undefined when the ids are too
   * sparse for an array (an index re-written many times over).
   */
  static read(db: Database.Database): ElementFiles | undefined {
    const { n, maxId } = prepared<[], { n: number; maxId: number | null }>(
      db,
      'SELECT count(*) AS n, max(vector_id) AS maxId FROM elements',
    ).get()!;
    const size = (maxId ?? 0) + 1;
    if (size > n * MAX_IDS_PER_ELEMENT + SPARSE_ALLOWANCE) return undefined;
    const fileOf = new Int32Array(size);
    const sizes = new Map<number, number>();
    const rows = prepared<[], [number, string]>(
      db,
      'SELECT file_id, group_concat(vector_id) FROM elements GROUP BY file_id',
    )
      .raw()
      .all(); // One row per file: all() costs little, and iterate() would make an iterator object each time (see sqlite.ts).
    for (const [fileId, joined] of rows) {
      const ids = joined.split(',');
      for (const id of ids) fileOf[Number(id)] = fileId;
      sizes.set(fileId, ids.length);
    }
    return new ElementFiles(fileOf, sizes);
  }

  /** A file's number of elements. */
  sizeOf(fileId: number): number | undefined {
    return this.#sizes.get(fileId);
  }

  /**
   * For one term: file id -> how many distinct elements of the given id
   * lists (the term's matches in each FTS5 table) the file holds. Ids the
   * map does not know (written after it was read) are left out.
   */
  countByFile(idLists: readonly (readonly number[])[]): Map<number, number> {
    if (this.#mark === 0x7fffffff) {
      this.#seen.fill(0);
      this.#mark = 0;
    }
    const mark = ++this.#mark;
    const counts = new Map<number, number>();
    for (const ids of idLists) {
      for (const id of ids) {
        if (id >= this.#fileOf.length || this.#seen[id] === mark) continue;
        this.#seen[id] = mark;
        const file = this.#fileOf[id]!;
        if (file !== 0) counts.set(file, (counts.get(file) ?? 0) + 1);
      }
    }
    return counts;
  }
}
