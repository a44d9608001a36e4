/**
 * The FAISS files of an embedded index on disk: their names
 * (`vectors-g<N>.ocvx`, the generation they reflect), which one the database
 * recorded and whether it is still as written, listing and removing them.
 * VectorIndex (vector-file.ts) decides when they are read and written.
 */
import { closeSync, constants, existsSync, lstatSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FaissError } from '../../native/errors.js';
import { FaissIndex } from '../../native/faiss-index.js';
import { statIdentity } from './index-files.js';
import type { IndexStore } from './index-store.js';

/** The name of a vectors file: `vectors-g<N>.ocvx`, N the generation it reflects. */
export const FILE_PATTERN = /^vectors-g(\d+)\.ocvx$/;
/** The container header's payload length and checksum (bytes 16 to 32): the file's identity. */
const IDENTITY_BYTES = [16, 32] as const;

/** The name of the file that reflects a generation. */
export function vectorFileName(generation: number): string {
  return `vectors-g${generation}.ocvx`;
}

export interface UsableFile {
  /** The database generation the file reflects. */
  generation: number;
  path: string;
  /**
   * Written by this index on this machine and unchanged since: its stat,
   * change time and inode included, is the one recorded when it was written.
   * Only such a file is parsed by FAISS in this process; any other (copied,
   * cloned, restored, touched, or recorded by an older version) is checked
   * in a child process first (vector-file.ts).
   */
  asWritten: boolean;
  /** The stat the file had when asWritten was answered: a later read checks it is still the same file. */
  stat: string | undefined;
}

/**
 * The index file this database names, when its header is still the recorded
 * one: a regular file, not ahead of the database's generation, and not from
 * before a reset. The record is data like the rest of the index directory
 * (it may have come with a clone): it picks a file, and only `asWritten` says
 * the file may be trusted.
 */
export function usableFile(store: IndexStore): UsableFile | undefined {
  const [name, identity, written] = store.meta.vectorsFile.split(' ');
  const generation = Number(FILE_PATTERN.exec(name ?? '')?.[1] ?? Number.NaN);
  const rebuiltAt = store.meta.rebuiltAtGeneration;
  if (!(generation <= store.generation && generation >= rebuiltAt)) return undefined;
  const path = join(store.directory, name!);
  if (identity === undefined || fileIdentity(path) !== identity) return undefined;
  const stat = statIdentity(path);
  return { generation, path, asWritten: written !== undefined && stat === written, stat };
}

/**
 * FAISS's index from a recorded file. One as this index wrote it is parsed
 * here, shared or mapped as asked; any other is parsed and checked in a child
 * process first (FaissIndex.read's `untrusted`), so that bytes made elsewhere
 * to crash FAISS's parser crash only that child (FaissError CORRUPT_INDEX).
 */
export function readVectorFile(
  file: Pick<UsableFile, 'path' | 'asWritten'>,
  options: { shared?: boolean; mapped?: boolean } = {},
): Promise<FaissIndex> {
  return file.asWritten ? FaissIndex.read(file.path, options) : FaissIndex.read(file.path, { untrusted: true });
}

/**
 * Whether a recorded file reads whole, checked as readVectorFile reads it:
 * false when it is damaged or gone; any other failure (no memory, too many
 * open files) is thrown, not taken for a lost file.
 */
export async function readsWhole(file: Pick<UsableFile, 'path' | 'asWritten'>): Promise<boolean> {
  try {
    (await readVectorFile(file)).close();
    return true;
  } catch (error) {
    if (error instanceof FaissError && error.code === 'CORRUPT_INDEX') return false;
    if (!existsSync(file.path)) return false;
    throw error;
  }
}

/**
 * What the database records of the file it wrote (meta `vectorsFile`): its
 * name, its container header's identity and its stat; undefined when the
 * file cannot be read back.
 */
export function fileRecord(path: string): string | undefined {
  const identity = fileIdentity(path);
  const written = statIdentity(path);
  return identity === undefined || written === undefined ? undefined : `${basename(path)} ${identity} ${written}`;
}

/** The identity bytes of a regular file's container header, as hex; undefined for anything else. */
export function fileIdentity(path: string): string | undefined {
  try {
    if (!lstatSync(path).isFile()) return undefined;
    // O_NONBLOCK: should the file have become a FIFO since, opening it does not wait for a writer.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const header = Buffer.alloc(IDENTITY_BYTES[1]);
      if (readSync(fd, header, 0, header.length, 0) !== header.length || header.toString('latin1', 0, 8) !== 'OCVECIDX')
        return undefined;
      return header.subarray(...IDENTITY_BYTES).toString('hex');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Removes an old index file (or whatever took its name); one that cannot be removed is left to the next checkpoint. */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // a directory under that name, or no permission: it is never used, as it is not the recorded file
  }
}

/** The FAISS files in an index directory, oldest first. */
export function listVectorFiles(directory: string): { generation: number; path: string }[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ match: FILE_PATTERN.exec(name), name }))
    .filter((entry) => entry.match !== null)
    .map((entry) => ({ generation: Number(entry.match![1]), path: join(directory, entry.name) }))
    .sort((a, b) => a.generation - b.generation);
}
